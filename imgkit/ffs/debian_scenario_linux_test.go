package ffs_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/ffs"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/makefs"
	"github.com/fixturegen/fixturegen/internal/tooltest"
	"github.com/rogpeppe/go-internal/txtar"
)

// This file pins the golden sum of debian-ufs2.img in
// testscripts/ffs_sums.txtar, which fixturegen recorded itself and which
// sleuthkit cannot read (it looks for a UFS2 superblock at 64 KiB and
// 256 KiB, not at 8 KiB where Debian's makefs puts it), against Debian's
// makefs.

// sumsScenario is the testscript whose debian-ufs2.img golden the test
// pins, relative to this package.
const sumsScenario = "../../testscripts/ffs_sums.txtar"

// flagsSet are the file flags tree.mtree sets, by path, as FreeBSD's
// sys/stat.h numbers them: uarch is UF_ARCHIVE (0x800), schg,nodump is
// SF_IMMUTABLE (0x20000) | UF_NODUMP (0x1).
var flagsSet = map[string]uint32{
	"a/small":     0x800,
	"b/immutable": 0x20001,
}

// TestDebianUFS2Golden builds debian-ufs2.img from ffs_sums.txtar's tree
// with the options of the scenario's manifest line, checks that its size
// and SHA-256 are the ones fixtures.sum records, and compares its bytes
// with Debian's makefs's image of the same tree, masking only the fields
// that makefs fills from random() or with heap pointers (as
// TestCompatDebianBytes does).
//
// Debian's makefs cannot take the scenario's inputs as they are: it reads
// the spec's zero-filled files (frag3k, big, many/*) from the directory
// and fails when they are not there, puts entries the spec adds ahead of
// the directory's own, keeps sockets (FreeBSD's makefs and fixturegen
// leave them out), and with -T leaves UFS2 inode times as the files have
// them. So it is given the tree fixturegen reads from src and the spec,
// written out as a directory (as root: the spec's devices need mknod),
// and the spec with time= on its /set line and without its socket. Its
// Linux build also writes di_flags 0, whatever the spec says, so the test
// checks the flags of fixturegen's image against FreeBSD's values and
// clears them before the comparison.
func TestDebianUFS2Golden(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "makefs")
	if os.Geteuid() != 0 {
		tooltest.Missing(t, "writing the spec's devices out for Debian's makefs needs root (mknod)")
	}
	data, err := os.ReadFile(sumsScenario)
	if err != nil {
		t.Fatal(err)
	}
	ar := txtar.Parse(data)
	root := t.TempDir()
	work := filepath.Join(root, "work")
	writeScenario(t, root, ar)
	fixtures := filepath.Join(work, "fixtures")
	line := manifestLine(t, ar, "debian-ufs2.img")

	// fixturegen's image, from the manifest line as the build runs it.
	gotPath := filepath.Join(t.TempDir(), "fixturegen.img")
	args := append([]string{}, line[1:]...)
	args[len(args)-2] = gotPath
	cmd, err := makefs.Parse(args, fixtures, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Run(io.Discard, io.Discard); err != nil {
		t.Fatalf("makefs %s: %v", strings.Join(args, " "), err)
	}
	got, err := os.ReadFile(gotPath)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(got)
	if want, have := recordedSum(t, ar, "debian-ufs2.img"), fmt.Sprintf("%d sha256:%s", len(got), hex.EncodeToString(sum[:])); have != want {
		t.Errorf("debian-ufs2.img is %s, fixtures.sum records %s", have, want)
	}

	// Debian's image of the same tree.
	tree, err := cmd.Tree(io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	full := filepath.Join(root, "full")
	writeTree(t, tree, full)
	spec := debianSpec(t, filepath.Join(work, "tree.mtree"), filepath.Join(root, "debian.mtree"))
	wantPath := filepath.Join(t.TempDir(), "debian.img")
	tooltest.RunSorted(t, fixtures, "makefs", debianArgs(t, line[1:], spec, wantPath, full)...)
	want, err := os.ReadFile(wantPath)
	if err != nil {
		t.Fatal(err)
	}

	img, err := ffs.NewReader(bytes.NewReader(got), int64(len(got)))
	if err != nil {
		t.Fatal(err)
	}
	for name, flags := range flagsSet {
		fi, err := img.Lstat(name)
		if err != nil {
			t.Fatal(err)
		}
		in := fi.Sys().(*ffs.Inode)
		if in.Flags != flags {
			t.Errorf("%s: di_flags %#x, the spec sets %#x", name, in.Flags, flags)
		}
		if err := ffs.ClearInodeFlags(got, int64(in.Ino)); err != nil {
			t.Fatal(err)
		}
	}
	ffs.CompareDebian(t, want, got)
}

// writeScenario writes the files of the scenario ar under root and runs
// its symlink and ln commands in root/work, where the script runs them.
func writeScenario(t *testing.T, root string, ar *txtar.Archive) {
	t.Helper()
	for _, f := range ar.Files {
		p := filepath.Join(root, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	work := filepath.Join(root, "work")
	var err error
	for _, l := range strings.Split(string(ar.Comment), "\n") {
		w := strings.Fields(l)
		switch {
		case len(w) == 4 && w[0] == "symlink" && w[2] == "->":
			err = os.Symlink(w[3], filepath.Join(work, w[1]))
		case len(w) == 4 && w[0] == "exec" && w[1] == "ln":
			err = os.Link(filepath.Join(work, w[2]), filepath.Join(work, w[3]))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// manifestLine returns the command line of the manifest entry for image,
// split into words, without the "image:" prefix.
func manifestLine(t *testing.T, ar *txtar.Archive, image string) []string {
	t.Helper()
	for _, l := range strings.Split(archiveFile(t, ar, "work/fixtures/manifest"), "\n") {
		if rest, ok := strings.CutPrefix(l, image+":"); ok {
			return strings.Fields(rest)
		}
	}
	t.Fatalf("%s: the manifest has no line for %s", sumsScenario, image)
	return nil
}

// recordedSum returns the size and sum fixtures.sum records for image, as
// "size sha256:hex".
func recordedSum(t *testing.T, ar *txtar.Archive, image string) string {
	t.Helper()
	for _, l := range strings.Split(archiveFile(t, ar, "work/fixtures/fixtures.sum"), "\n") {
		if w := strings.Fields(l); len(w) == 3 && w[0] == image {
			return w[1] + " " + w[2]
		}
	}
	t.Fatalf("%s: fixtures.sum has no line for %s", sumsScenario, image)
	return ""
}

// archiveFile returns the contents of the file name of ar.
func archiveFile(t *testing.T, ar *txtar.Archive, name string) string {
	t.Helper()
	for _, f := range ar.Files {
		if f.Name == name {
			return string(f.Data)
		}
	}
	t.Fatalf("%s has no file %s", sumsScenario, name)
	return ""
}

// writeTree writes tree out as the directory dir, every entry of it
// present, so that Debian's makefs finds in dir each entry its spec
// names. Owners, modes and times are left to the spec; sockets are left
// out, as fixturegen's image leaves them out.
func writeTree(t *testing.T, tree *fstree.Tree, dir string) {
	t.Helper()
	err := tree.Walk(func(p string, n *fstree.Node) error {
		path := filepath.Join(dir, filepath.FromSlash(p))
		switch {
		case n.HardLink != nil:
			return os.Link(filepath.Join(dir, filepath.FromSlash(n.HardLink.Path())), path)
		case n.Type == fstree.TypeDir:
			return os.MkdirAll(path, 0o755)
		case n.Type == fstree.TypeSymlink:
			return os.Symlink(n.Link, path)
		case n.Type == fstree.TypeFIFO:
			return syscall.Mkfifo(path, 0o600)
		case n.Type == fstree.TypeChar:
			return syscall.Mknod(path, syscall.S_IFCHR|0o600, int(n.Rdev))
		case n.Type == fstree.TypeBlock:
			return syscall.Mknod(path, syscall.S_IFBLK|0o600, int(n.Rdev))
		case n.Type == fstree.TypeFile:
			return copyNode(n, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// copyNode writes the contents of the regular file n to path.
func copyNode(n *fstree.Node, path string) error {
	r, err := n.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	w, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// debianSpec writes to out the spec at in with every entry's time set to
// the scenario's -T time (Debian's makefs then sets atime and mtime to it
// and ctime to the -T time) and without its socket entry. It fails the
// test if the spec does not have the lines it changes.
func debianSpec(t *testing.T, in, out string) string {
	t.Helper()
	b, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	var set, sock bool
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(l, "/set "):
			l += " time=1600000000.0"
			set = true
		case strings.Contains(l, "type=socket"):
			sock = true
			continue
		}
		lines = append(lines, l)
	}
	if !set || !sock {
		t.Fatalf("%s: no /set line or no socket entry to change for Debian's makefs", in)
	}
	if err := os.WriteFile(out, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// debianArgs turns the words of the manifest line (fixturegen makefs
// arguments) into Debian's makefs arguments: without --metadata, which
// is fixturegen's, and compat=debian, with spec for -F and image and dir
// for the operands. It fails the test unless -T is the time debianSpec
// writes into the spec.
func debianArgs(t *testing.T, words []string, spec, image, dir string) []string {
	t.Helper()
	var args []string
	for i := 0; i < len(words)-2; i++ {
		switch w := words[i]; {
		case strings.HasPrefix(w, "--metadata"):
		case w == "-F":
			args = append(args, w, spec)
			i++
		case w == "-T" && words[i+1] != "1600000000":
			t.Fatalf("-T %s: debianSpec sets 1600000000", words[i+1])
		case w == "-o":
			var keep []string
			for _, o := range strings.Split(words[i+1], ",") {
				if o != "compat=debian" {
					keep = append(keep, o)
				}
			}
			args = append(args, w, strings.Join(keep, ","))
			i++
		default:
			args = append(args, w)
		}
	}
	return append(args, image, dir)
}
