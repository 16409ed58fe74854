package cd9660

import (
	"bytes"
	"errors"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// srcFile is one file of a test source tree.
type srcFile struct {
	name string
	size int         // regular file: its size, filled with a pattern
	mode os.FileMode // permission bits, or a type bit for dirs and links
	link string      // symbolic link target
}

// testFiles is the tree the tools make images of: long, mixed-case and
// non-ASCII names, a tree deeper than ECMA-119's 8 levels, symbolic links
// relative, absolute and long, files of 0, 1, 2048 and 70000 bytes.
func testFiles() []srcFile {
	long := strings.Repeat("L", 200)
	deep := "deep/1/2/3/4/5/6/7/8/9/10/11/12"
	return []srcFile{
		{name: "a.txt", size: 6, mode: 0o644},
		{name: "empty", mode: 0o600},
		{name: "Mixed Case.TXT", size: 1, mode: 0o640},
		{name: "ünïcödé.txt", size: 10, mode: 0o644},
		{name: long, size: 3, mode: 0o644},
		{name: "dir/", mode: 0o750},
		{name: "dir/big.bin", size: 70000, mode: 0o755},
		{name: "dir/sub/", mode: 0o755},
		{name: "dir/sub/block", size: 2048, mode: 0o444},
		{name: "dir/uplink", link: "../a.txt"},
		{name: "link", link: "a.txt"},
		{name: "abs", link: "/dir/big.bin"},
		{name: "dirlink", link: "dir"},
		{name: "longlink", link: strings.Repeat("./", 140) + "a.txt"},
		{name: deep + "/f", size: 5, mode: 0o644},
	}
}

// pattern returns n bytes that differ from file to file.
func pattern(name string, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + len(name) + int(name[0]))
	}
	return b
}

// makeSource writes files under a new temporary directory with fixed
// modification times and returns it.
func makeSource(t *testing.T, files []srcFile) string {
	t.Helper()
	dir := t.TempDir()
	var dirs []string
	for _, f := range files {
		p := filepath.Join(dir, strings.TrimSuffix(f.name, "/"))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch {
		case strings.HasSuffix(f.name, "/"):
			err = os.MkdirAll(p, 0o755)
			dirs = append(dirs, p)
		case f.link != "":
			err = os.Symlink(f.link, p)
		default:
			err = os.WriteFile(p, pattern(f.name, f.size), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	stamp := time.Date(2024, 2, 29, 12, 30, 0, 0, time.UTC)
	for i, f := range files {
		p := filepath.Join(dir, strings.TrimSuffix(f.name, "/"))
		if f.link == "" {
			os.Chmod(p, f.mode.Perm())
			os.Chtimes(p, stamp, stamp.Add(time.Duration(i)*time.Hour))
		}
	}
	// Directories last, bottom-up, since creating files changes them.
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && !strings.HasSuffix(p, "/") {
			dirs = append(dirs, p)
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		os.Chtimes(dirs[i], stamp, stamp.Add(-time.Duration(i)*time.Minute))
	}
	return dir
}

// addSpecials adds a character device, a block device and a fifo to the
// source tree when the test runs as root; it reports whether it did.
func addSpecials(t *testing.T, dir string) bool {
	t.Helper()
	if os.Geteuid() != 0 || !canMknod {
		return false
	}
	d := filepath.Join(dir, "dev")
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []struct {
		name string
		kind byte
		perm uint32
		dev  int
	}{{"null", 'c', 0o666, 1<<8 | 3}, {"sda", 'b', 0o660, 8 << 8}, {"fifo", 'p', 0o644, 0}} {
		if err := mknod(filepath.Join(d, n.name), n.kind, n.perm, n.dev); err != nil {
			t.Fatalf("mknod %s: %v", n.name, err)
		}
	}
	stamp := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, n := range []string{"null", "sda", "fifo", ""} {
		os.Chtimes(filepath.Join(d, n), stamp, stamp)
	}
	return true
}

// addSocket adds a Unix domain socket to the source tree.
func addSocket(t *testing.T, dir string) {
	t.Helper()
	p := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", p)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
	stamp := time.Date(2022, 6, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(p, stamp, stamp); err != nil {
		t.Fatal(err)
	}
}

// isoTool is one ISO 9660 writer the reader is tested against.
type isoTool struct {
	name string
	tool string
	args func(out, src string) []string
	// sockets: the tool records sockets (makefs refuses them).
	sockets bool
	// splitLinkDefect: the tool drops the component record at the
	// boundary of two SL entries of a long symbolic link (FreeBSD's and
	// NetBSD's makefs): the reader must read back what the entries hold.
	splitLinkDefect bool
}

var isoTools = []isoTool{
	{name: "xorriso", tool: "xorriso", args: func(out, src string) []string {
		return []string{"-as", "mkisofs", "-quiet", "-R", "-J", "-o", out, src}
	}, sockets: true},
	{name: "genisoimage", tool: "genisoimage", args: func(out, src string) []string {
		return []string{"-quiet", "-R", "-J", "-joliet-long", "-o", out, src}
	}, sockets: true},
	{name: "freebsd-makefs", tool: "freebsd-makefs", args: func(out, src string) []string {
		return []string{"-t", "cd9660", "-o", "rockridge", out, src}
	}, splitLinkDefect: true},
	{name: "makefs", tool: "makefs", args: func(out, src string) []string {
		return []string{"-t", "cd9660", "-o", "rockridge", out, src}
	}, splitLinkDefect: true},
}

// makeImage runs tool on src and returns the image's path.
func makeImage(t *testing.T, tool isoTool, src string) string {
	t.Helper()
	bin := tooltest.Need(t, tool.tool)
	out := filepath.Join(t.TempDir(), "img.iso")
	cmd := exec.Command(bin, tool.args(out, src)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", tool.name, err, b)
	}
	return out
}

// TestToolImages opens the images of each tool: fstest.TestFS passes, and
// names, types, modes, sizes, contents, symbolic link targets, device
// numbers and modification times equal the source tree's. fstest.TestFS
// reads each file in pieces of a byte or a few: the first tool's image,
// and with FIXTUREGEN_LONG=1 each, is read through OpenReader, a pread
// of the file (a system call) a piece; the others through NewReader over
// the file read a block at a time (tooltest.BlockReaderAt).
func TestToolImages(t *testing.T) {
	t.Parallel()
	for k, tool := range isoTools {
		t.Run(tool.name, func(t *testing.T) {
			t.Parallel()
			src := makeSource(t, testFiles())
			addSpecials(t, src)
			if tool.sockets {
				addSocket(t, src)
			}
			img := makeImage(t, tool, src)
			rc, err := OpenReader(img)
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			if rc.Namespace() != RockRidge {
				t.Fatalf("namespace %v, want Rock Ridge", rc.Namespace())
			}
			f := &rc.FS
			if k > 0 && !tooltest.Long() {
				file, err := os.Open(img)
				if err != nil {
					t.Fatal(err)
				}
				defer file.Close()
				fi, err := file.Stat()
				if err != nil {
					t.Fatal(err)
				}
				if f, err = NewReader(tooltest.BlockReaderAt(file), fi.Size()); err != nil {
					t.Fatal(err)
				}
			}
			if err := fstest.TestFS(f, "a.txt", "dir/big.bin", "deep/1/2/3/4/5/6/7/8/9/10/11/12/f"); err != nil {
				t.Error(err)
			}
			wantLink := func(rel, target string) string { return target }
			if tool.splitLinkDefect {
				// 140 "./" components, 125 in the first SL entry: makefs
				// loses the one at the boundary.
				wantLink = func(rel, target string) string {
					if rel == "longlink" {
						return strings.Replace(target, "./", "", 1)
					}
					return target
				}
			}
			compareTree(t, &rc.FS, src, wantLink)
		})
	}
}

// compareTree checks that fsys holds exactly the files of the directory
// src, with their types, permission bits, sizes, contents, link targets
// (as wantLink says the image records them), device numbers and
// modification times (to the second).
func compareTree(t *testing.T, fsys *FS, src string, wantLink func(rel, target string) string) {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		rel = filepath.ToSlash(rel)
		seen[rel] = true
		want, err := os.Lstat(p)
		if err != nil {
			return err
		}
		got, err := fsys.Lstat(rel)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			return nil
		}
		compareFile(t, fsys, rel, p, want, got, wantLink)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Errorf("walk %s: %v", p, err)
		} else if !seen[p] {
			t.Errorf("%s: in the image, not in the source tree", p)
		}
		return nil
	})
}

// compareFile compares one file of the image with its source.
func compareFile(t *testing.T, fsys *FS, rel, p string, want, got fs.FileInfo, wantLink func(rel, target string) string) {
	t.Helper()
	if got.Mode() != want.Mode() {
		t.Errorf("%s: mode %v, want %v", rel, got.Mode(), want.Mode())
	}
	if rel != "." && !got.ModTime().Equal(want.ModTime().Truncate(time.Second)) {
		t.Errorf("%s: modification time %v, want %v", rel, got.ModTime(), want.ModTime())
	}
	e := got.Sys().(*Entry)
	switch {
	case want.Mode().IsRegular():
		b, err := fsys.ReadFile(rel)
		wb, _ := os.ReadFile(p)
		if err != nil || !bytes.Equal(b, wb) {
			t.Errorf("%s: contents differ (%d bytes, want %d; %v)", rel, len(b), len(wb), err)
		}
	case want.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(p)
		target = wantLink(rel, target)
		if l, err := fsys.ReadLink(rel); l != target || err != nil {
			t.Errorf("%s: link %q (%v), want %q", rel, l, err, target)
		}
	case want.Mode()&fs.ModeDevice != 0:
		if rdev, ok := statRdev(want); ok && e.Rdev() != rdev {
			t.Errorf("%s: device %#x, want %#x", rel, e.Rdev(), rdev)
		}
	}
}

// TestNamespaces reads the ISO 9660 and Joliet trees of an xorriso image
// and compares their names with isoinfo's listings of them.
func TestNamespaces(t *testing.T) {
	t.Parallel()
	isoinfo := tooltest.Need(t, "isoinfo")
	src := makeSource(t, testFiles())
	img := makeImage(t, isoTools[0], src)
	rc, err := OpenReader(img)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	for _, c := range []struct {
		ns   Namespace
		flag string
		dir  string
	}{{ISO9660, "", "DIR"}, {Joliet, "-J", "dir"}} {
		v, err := rc.View(c.ns)
		if err != nil {
			t.Fatal(err)
		}
		if err := fstest.TestFS(v, c.dir); err != nil {
			t.Errorf("%v: %v", c.ns, err)
		}
		args := []string{"-f", "-i", img}
		if c.flag != "" {
			args = append(args, c.flag, "-j", "iso8859-1")
		}
		out, err := exec.Command(isoinfo, args...).Output()
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]bool{}
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			want[latin1([]byte(strings.TrimPrefix(l, "/")))] = true
		}
		fs.WalkDir(v, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == "." {
				return err
			}
			id := identifierPath(t, v, p)
			if !want[id] {
				t.Errorf("%v: %s (recorded %s) not in isoinfo's listing", c.ns, p, id)
			}
			delete(want, id)
			return nil
		})
		for p := range want {
			t.Errorf("%v: isoinfo lists %s, the reader does not", c.ns, p)
		}
	}
}

// identifierPath returns the path of p by its recorded file identifiers.
func identifierPath(t *testing.T, v *FS, p string) string {
	var ids []string
	for q := p; q != "."; q = filepath.Dir(q) {
		e, err := v.Entry(q)
		if err != nil {
			t.Fatal(err)
		}
		ids = append([]string{e.Identifier}, ids...)
	}
	return strings.Join(ids, "/")
}

// TestISONames checks the names of a file identifier without Rock Ridge.
func TestISONames(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		id   string
		dir  bool
		want string
	}{
		{"README.TXT;1", false, "README.TXT"},
		{"MAKEFILE.;1", false, "MAKEFILE"},
		{"A;B", false, "A;B"},
		{"NOVERS", false, "NOVERS"},
		{"DIR.D", true, "DIR.D"},
		{";1", false, ";1"},
		{".;1", false, "."},
		{"CHAPTER0;1\x00", false, "CHAPTER0"},
		{"DIR0\x00", true, "DIR0"},
	} {
		if got := plainName(c.id, c.dir); got != c.want {
			t.Errorf("plainName(%q, %v) = %q, want %q", c.id, c.dir, got, c.want)
		}
	}
}

// TestOpenErrors checks the errors of images that are not ISO 9660.
func TestOpenErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		img  []byte
	}{
		{"empty", nil},
		{"zeros", make([]byte, 20*SectorSize)},
	} {
		_, err := NewReader(bytes.NewReader(c.img), int64(len(c.img)))
		if !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v, want ErrFormat", c.name, err)
		}
	}
	if _, err := OpenReader(t.TempDir()); err == nil {
		t.Error("OpenReader of a directory succeeded")
	}
}
