package fstree

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestWalkXattrs checks that WalkDir reads extended attributes only when
// asked, in the host's listing order, for files, folders and the root,
// and drops them with MetadataGit.
func TestWalkXattrs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, "f")
	if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{f, filepath.Join(dir, "sub"), dir} {
		if err := unix.Lsetxattr(p, "user.one", []byte("1"), 0); err != nil {
			t.Skipf("no user attributes here: %v", err)
		}
		if err := unix.Lsetxattr(p, "user.two", nil, 0); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		opts *Options
		want int
	}{{nil, 0}, {&Options{}, 0}, {&Options{Xattrs: true}, 2}, {&Options{Xattrs: true, Metadata: MetadataGit}, 0}} {
		tr, err := WalkDir(dir, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []*Node{tr.Root, tr.Root.Children[0], tr.Root.Children[1]} {
			if len(n.Xattrs) != c.want {
				t.Errorf("%+v: %s: %v, want %d attributes", c.opts, n.Path(), n.Xattrs, c.want)
				continue
			}
			if c.want == 2 && (n.Xattrs[0].Name != "user.one" || string(n.Xattrs[0].Value) != "1" || n.Xattrs[1].Name != "user.two" || len(n.Xattrs[1].Value) != 0) {
				t.Errorf("%s: %+v", n.Path(), n.Xattrs)
			}
		}
	}
}
