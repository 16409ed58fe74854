package fstree

import (
	"embed"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"
)

// TestSourceFSDefaultsModes checks the modes FS assumes where a MapFS
// gives none or makes one up: files without a Mode are 0644, directories
// without permission bits or synthesised by MapFS (0555 there, with no key
// of their own) are 0755 as on disk, and a directory with a key keeps its
// Mode, 0555 included.
func TestSourceFSDefaultsModes(t *testing.T) {
	t.Parallel()
	ts := time.Unix(1700000000, 0).UTC()
	fsys := fstest.MapFS{
		"plain.txt":     {Data: []byte("hi")},
		"dir/inner.txt": {Data: []byte("x")},
		"empty":         {Mode: 0o755 | os.ModeDir},
		"ro.txt":        {Data: []byte("r"), Mode: 0o444},
		"none/zero":     {Mode: os.ModeDir},
		"ro/f":          {Data: []byte("f")},
		"ro":            {Mode: os.ModeDir | 0o555},
		"deep/er/f":     {Data: []byte("f"), Mode: 0o600},
	}
	tr, err := FS(fsys).Tree(&Options{Timestamp: ts})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		typ  Type
		mode uint32
	}{
		{"plain.txt", TypeFile, 0o644},
		{".", TypeDir, 0o755},
		{"dir", TypeDir, 0o755}, // synthesised by MapFS, which reports 0555
		{"ro", TypeDir, 0o555},
		{"ro/f", TypeFile, 0o644},
		{"deep", TypeDir, 0o755},
		{"deep/er", TypeDir, 0o755},
		{"deep/er/f", TypeFile, 0o600},
		{"dir/inner.txt", TypeFile, 0o644},
		{"empty", TypeDir, 0o755},
		{"ro.txt", TypeFile, 0o444},
		{"none/zero", TypeDir, 0o755},
	} {
		n := tr.Lookup(c.path)
		if c.path == "." {
			n = tr.Root
		}
		if n == nil {
			t.Errorf("%s: missing", c.path)
			continue
		}
		if n.Type != c.typ || n.Mode != c.mode {
			t.Errorf("%s: %v %#o, want %v %#o", c.path, n.Type, n.Mode, c.typ, c.mode)
		}
		if !n.Mtime.Equal(ts) {
			t.Errorf("%s: mtime %v, want %v", c.path, n.Mtime, ts)
		}
		if n.UID != 0 || n.GID != 0 || n.Rdev != 0 {
			t.Errorf("%s: owner %d:%d rdev %#x, want 0:0 and 0", c.path, n.UID, n.GID, n.Rdev)
		}
	}

	// A *MapFS is a MapFS, and a root with a key keeps its Mode.
	withRoot := fstest.MapFS{".": {Mode: os.ModeDir | 0o700}, "a/b": {}}
	tr, err = FS(&withRoot).Tree(nil)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Root.Mode != 0o700 || tr.Lookup("a").Mode != 0o755 {
		t.Errorf("*MapFS: root %#o, a %#o; want 0700 and 0755", tr.Root.Mode, tr.Lookup("a").Mode)
	}
}

func TestSourceDirAndTree(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("data"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Unix(1000, 0).UTC()
	if err := os.Chtimes(filepath.Join(dir, "f"), old, old); err != nil {
		t.Fatal(err)
	}
	clamp := time.Unix(2000, 0).UTC()
	tr, err := Dir(dir).Tree(&Options{Timestamp: clamp, ClampTimes: true})
	if err != nil {
		t.Fatal(err)
	}
	f := tr.Lookup("f")
	if f == nil || f.Mode != 0o600 || !f.Mtime.Equal(old) {
		t.Fatalf("f = %+v, want mode 0600 and mtime %v kept under the clamp", f, old)
	}
	if tr.Root.Mtime.After(clamp) {
		t.Errorf("root mtime %v after the clamp %v", tr.Root.Mtime, clamp)
	}

	// A built tree is a Source: applying -T to it replaces every time, and
	// applying the same options again changes nothing.
	ts := time.Unix(3000, 0).UTC()
	same, err := tr.Tree(&Options{Timestamp: ts})
	if err != nil || same != tr {
		t.Fatalf("Tree returned %p, %v; want the tree itself", same, err)
	}
	if !f.Mtime.Equal(ts) || !f.Atime.Equal(ts) {
		t.Errorf("after -T: mtime %v atime %v, want %v", f.Mtime, f.Atime, ts)
	}
	if _, err := tr.Tree(&Options{Timestamp: ts}); err != nil || !f.Mtime.Equal(ts) {
		t.Errorf("second application: %v, mtime %v", err, f.Mtime)
	}
}

// A source directory given as a symbolic link to a directory is followed,
// as makefs follows its argument; links below it are kept as links.
func TestWalkDirFollowsRootLink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.MkdirAll(filepath.Join(real, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "sub", "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub", filepath.Join(real, "inner")); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("real", link); err != nil {
		t.Fatal(err)
	}
	tr, err := WalkDir(link, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Root.Type != TypeDir {
		t.Fatalf("root is %v, want dir", tr.Root.Type)
	}
	if n := tr.Lookup("sub/f"); n == nil || n.Type != TypeFile {
		t.Errorf("sub/f = %+v, want the file under the link's target", n)
	}
	if n := tr.Lookup("inner"); n == nil || n.Type != TypeSymlink || n.Link != "sub" {
		t.Errorf("inner = %+v, want a symlink kept as a link", n)
	}
	if err := os.Symlink("real/sub/f", filepath.Join(dir, "filelink")); err != nil {
		t.Fatal(err)
	}
	if _, err := WalkDir(filepath.Join(dir, "filelink"), nil); err == nil {
		t.Error("a link to a file walked as a directory")
	}
}

// TestTreeSharedByBuilds calls Tree with the same options from several
// goroutines on a tree those options were applied to already, as builds
// sharing one tree do: nothing is written (the race detector, which CI
// runs, failed TestSuperblockOptions of imgkit/ffs when every call wrote
// every time back), and the times stay as the first call made them.
func TestTreeSharedByBuilds(t *testing.T) {
	t.Parallel()
	local := time.FixedZone("local", 3600)
	for _, o := range []*Options{nil, {Timestamp: time.Unix(1600000000, 0)}, {Timestamp: time.Unix(1600000000, 0), ClampTimes: true}} {
		tree, err := FS(fstest.MapFS{"a": {Data: []byte("x"), ModTime: time.Unix(1500000000, 0).In(local)},
			"d/b": {ModTime: time.Unix(1700000000, 0).In(local)}}).Tree(nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tree.Tree(o); err != nil {
			t.Fatal(err)
		}
		want := map[string]time.Time{}
		tree.eachNode(func(n *Node) { want[n.Path()] = n.Mtime })
		done := make(chan struct{})
		for range 4 {
			go func() {
				defer func() { done <- struct{}{} }()
				tree.Tree(o)
			}()
		}
		for range 4 {
			<-done
		}
		tree.eachNode(func(n *Node) {
			if !n.Mtime.Equal(want[n.Path()]) || n.Mtime.Location() != time.UTC {
				t.Errorf("%+v: %s: mtime %v, want %v in UTC", o, n.Path(), n.Mtime, want[n.Path()])
			}
		})
	}
}

//go:embed testdata
var embedded embed.FS

// TestSourceEmbedModes checks that an embed.FS, which reports 0444 and
// 0555 for all it holds, gives the modes of files and directories made on
// disk: 0644 and 0755.
func TestSourceEmbedModes(t *testing.T) {
	t.Parallel()
	for _, fsys := range []fs.FS{embedded, &embedded} {
		tr, err := FS(fsys).Tree(nil)
		if err != nil {
			t.Fatal(err)
		}
		files := 0
		tr.eachNode(func(n *Node) {
			want := map[Type]uint32{TypeFile: 0o644, TypeDir: 0o755}[n.Type]
			if n.Mode != want {
				t.Errorf("%T: %s: %v %#o, want %#o", fsys, n.Path(), n.Type, n.Mode, want)
			}
			if n.Type == TypeFile {
				files++
			}
		})
		if files == 0 {
			t.Errorf("%T: no files in the embedded testdata", fsys)
		}
	}
}
