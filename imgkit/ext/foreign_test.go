package ext_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/ext"
	"github.com/fixturegen/fixturegen/imgkit/inspect"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// dfvfsImage returns the bytes of testdata/dfvfs/name.gz, one of dfvfs's
// ext2 images in a container (see the README there).
func dfvfsImage(t *testing.T, name string) []byte {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "dfvfs", name+".gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// eaLine matches an attribute line of debugfs's ea_list: name and size.
var eaLine = regexp.MustCompile(`^  (\S+) \((\d+)\)`)

// TestForeignDfvfs opens dfvfs's ext2 test image, which Linux wrote (with
// security.selinux and user.* attributes) and qemu-img, VirtualBox or
// VMware put in a qcow2, VHD and VMDK container, through imgkit/inspect
// (container, then ext), and checks every path against what the
// reference debugfs reads from the raw image qemu-img converts it to:
// rdump's tree (type, permissions, owner, size, mtime, contents, link
// targets) and ea_list's attributes. sleuthkit's fls and icat read the
// raw image the same way.
func TestForeignDfvfs(t *testing.T) {
	t.Parallel()
	qemuImg := tooltest.Need(t, "qemu-img")
	debugfs := tooltest.Need(t, "debugfs-1.47.4")
	for _, name := range []string{"ext2.qcow2", "ext2.vhd", "ext2.vmdk"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := dfvfsImage(t, name)
			fsys, kind, err := inspect.Open(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			if s := kind.Summary(fsys); !strings.Contains(s, "no partition table, ext: ext2, 1024-byte blocks") {
				t.Errorf("summary %q", s)
			}
			dir := t.TempDir()
			src := filepath.Join(dir, name)
			if err := os.WriteFile(src, b, 0o644); err != nil {
				t.Fatal(err)
			}
			raw := filepath.Join(dir, "raw")
			if out, err := exec.Command(qemuImg, "convert", "-O", "raw", src, raw).CombinedOutput(); err != nil {
				t.Fatalf("qemu-img convert: %v\n%s", err, out)
			}
			tree := filepath.Join(dir, "tree")
			if err := os.Mkdir(tree, 0o755); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(debugfs, "-R", "rdump / "+tree, raw).CombinedOutput(); err != nil {
				t.Fatalf("debugfs rdump: %v\n%s", err, out)
			}
			compareWithDump(t, fsys, tree)
			if w := describe.Warnings(fsys); len(w) != 0 {
				t.Errorf("warnings: %q", w)
			}

			// The container's FS gives no Xattrs; the raw image's does.
			efs, err := ext.OpenReader(raw)
			if err != nil {
				t.Fatal(err)
			}
			defer efs.Close()
			var paths []string
			fs.WalkDir(efs, ".", func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					t.Fatal(err)
				}
				paths = append(paths, p)
				return nil
			})
			if len(paths) != 7 {
				t.Errorf("paths %q, want the root and 6 more", paths)
			}
			n := 0
			for _, p := range paths {
				out, err := exec.Command(debugfs, "-R", "ea_list /"+strings.TrimPrefix(p, "."), raw).Output()
				if err != nil {
					t.Fatalf("debugfs ea_list %s: %v", p, err)
				}
				var want, got []string
				for _, line := range strings.Split(string(out), "\n") {
					if m := eaLine.FindStringSubmatch(line); m != nil {
						want = append(want, m[1]+" "+m[2])
					}
				}
				xs, err := efs.Xattrs(p)
				if err != nil {
					t.Fatalf("Xattrs(%q): %v", p, err)
				}
				for _, x := range xs {
					got = append(got, x.Name+" "+strconv.Itoa(len(x.Value)))
					n++
				}
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Errorf("%s: attributes %q, debugfs ea_list %q", p, got, want)
				}
			}
			if n != 6 {
				t.Errorf("%d attributes, want 6 (security.selinux on 5 paths, user.myxattr)", n)
			}
			xs, _ := efs.Xattrs("a_directory/a_file")
			if i := slices.IndexFunc(xs, func(x ext.Xattr) bool { return x.Name == "user.myxattr" }); i < 0 || string(xs[i].Value) != "My extended attribute" {
				t.Errorf("a_directory/a_file: %+v", xs)
			}
			if w := efs.Warnings(); len(w) != 0 {
				t.Errorf("warnings: %q", w)
			}
			ext.CompareWithSleuthkit(t, &efs.FS, raw)
		})
	}
}

// compareWithDump compares every path of the image with the tree that
// debugfs rdump made of it (as root, which keeps owners): the same paths,
// types, permission bits, sizes, contents and link targets, and but for
// links (whose owner and time rdump does not set) owner and mtime.
func compareWithDump(t *testing.T, fsys fs.FS, tree string) {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(tree, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(tree, p)
		rel = filepath.ToSlash(rel)
		seen[rel] = true
		want, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if rel == "." {
			return nil // rdump gives the root's mode and owner to the folder it dumps into
		}
		got, err := fs.Lstat(fsys, rel)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			return nil
		}
		if got.Mode() != want.Mode() {
			t.Errorf("%s: mode %v, debugfs %v", rel, got.Mode(), want.Mode())
		}
		in := got.Sys().(*ext.Inode)
		uid, gid, ok := tooltest.Owner(want)
		if ok && want.Mode()&fs.ModeSymlink == 0 && (in.UID != uid || in.GID != gid || !in.Mtime.Equal(want.ModTime())) {
			t.Errorf("%s: owner %d:%d mtime %v, debugfs %d:%d %v", rel, in.UID, in.GID, in.Mtime, uid, gid, want.ModTime())
		}
		switch {
		case want.Mode().IsRegular():
			wb, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			gb, err := fs.ReadFile(fsys, rel)
			if err != nil || !bytes.Equal(gb, wb) {
				t.Errorf("%s: contents %q, %v; debugfs %q", rel, gb, err, wb)
			}
		case want.Mode()&fs.ModeSymlink != 0:
			wt, _ := os.Readlink(p)
			if gt, err := fs.ReadLink(fsys, rel); err != nil || gt != wt {
				t.Errorf("%s: target %q, %v; debugfs %q", rel, gt, err, wt)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !seen[p] {
			t.Errorf("the image holds %s, which debugfs rdump did not write", p)
		}
		return nil
	})
}
