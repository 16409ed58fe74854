package fstree

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// mkfile writes a file under dir, creating parents.
func mkfile(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// paths returns the walk-order paths of a tree.
func paths(t *testing.T, tr *Tree) []string {
	t.Helper()
	var ps []string
	if err := tr.Walk(func(p string, n *Node) error {
		if got := n.Path(); got != p {
			t.Errorf("Node.Path() = %q, Walk path %q", got, p)
		}
		ps = append(ps, p)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return ps
}

func TestWalkDirSortAndTypes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"b", "a", "B", "é", "z", "sub/y", "sub/x", "sub/deeper/q", "Z"} {
		mkfile(t, dir, name, "data of "+name)
	}
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub/x", filepath.Join(dir, "link")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	tr, err := WalkDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".", "B", "Z", "a", "b", "empty", "link", "sub", "sub/deeper", "sub/deeper/q", "sub/x", "sub/y", "z", "é"}
	if got := paths(t, tr); !slices.Equal(got, want) {
		t.Errorf("walk order:\n got %q\nwant %q", got, want)
	}
	checks := []struct {
		path string
		typ  Type
		size int64
	}{
		{".", TypeDir, 0}, {"a", TypeFile, 9}, {"sub", TypeDir, 0}, {"empty", TypeDir, 0},
		{"link", TypeSymlink, 5}, {"sub/deeper/q", TypeFile, 20},
	}
	for _, c := range checks {
		n := tr.Lookup(c.path)
		if n == nil {
			t.Fatalf("Lookup(%q) = nil", c.path)
		}
		if n.Type != c.typ || n.Size != c.size {
			t.Errorf("%s: type %v size %d, want %v %d", c.path, n.Type, n.Size, c.typ, c.size)
		}
	}
	if l := tr.Lookup("link"); l.Link != "sub/x" {
		t.Errorf("link target %q", l.Link)
	}
	if n := tr.Lookup("./sub/deeper/"); n == nil || n.Name != "deeper" {
		t.Errorf("Lookup with ./ prefix and trailing slash: %v", n)
	}
	if tr.Lookup("nope") != nil || tr.Lookup("a/b") != nil {
		t.Error("Lookup of a missing path is not nil")
	}
	if root := tr.Lookup("."); root != tr.Root || root.Name != "." || root.Path() != "." {
		t.Error("Lookup(.) is not the root")
	}
	if n := tr.Root; n.Nlink != 2+2 {
		t.Errorf("root Nlink %d, want 4 (2 + empty and sub)", n.Nlink)
	}
	if runtime.GOOS != "windows" {
		if n := tr.Lookup("empty"); n.Mode != 0o700 {
			t.Errorf("empty mode %o", n.Mode)
		}
		if n := tr.Lookup("a"); n.UID != uint32(os.Getuid()) || n.GID != uint32(os.Getgid()) {
			t.Errorf("a uid/gid %d/%d, want %d/%d", n.UID, n.GID, os.Getuid(), os.Getgid())
		}
	}

	// Open reads the file; on a non-file it fails with ErrNotRegular.
	f, err := tr.Lookup("sub/x").Open()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(f)
	f.Close()
	if string(b) != "data of sub/x" {
		t.Errorf("contents %q", b)
	}
	if _, ok := f.(*os.File); !ok {
		t.Errorf("Open of a walked file gives %T, want *os.File", f)
	}
	if _, err := tr.Lookup("sub").Open(); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Open(dir) error %v", err)
	}

	// SkipDir skips children; SkipAll stops.
	var seen []string
	tr.Walk(func(p string, n *Node) error {
		seen = append(seen, p)
		if p == "sub" {
			return fs.SkipDir
		}
		if p == "z" {
			return fs.SkipAll
		}
		return nil
	})
	if want := []string{".", "B", "Z", "a", "b", "empty", "link", "sub", "z"}; !slices.Equal(seen, want) {
		t.Errorf("SkipDir/SkipAll walk %q", seen)
	}
}

func TestWalkDirNotDir(t *testing.T) {
	t.Parallel()
	p := mkfile(t, t.TempDir(), "f", "x")
	if _, err := WalkDir(p, nil); err == nil {
		t.Error("WalkDir of a file: no error")
	}
	if _, err := WalkDir(filepath.Join(t.TempDir(), "missing"), nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("WalkDir of a missing dir: %v", err)
	}
}

func TestWalkDirHardLinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first := mkfile(t, dir, "d/m", "shared")
	mkfile(t, dir, "solo", "alone")
	for _, name := range []string{"a", "d/z"} {
		if err := os.Link(first, filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			t.Skip("no hard links here:", err)
		}
	}
	// A link to outside the tree: it must not count.
	if err := os.Link(first, filepath.Join(t.TempDir(), "outside")); err != nil {
		t.Fatal(err)
	}
	tr, err := WalkDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "windows" {
		return // FileInfo has no inode numbers there
	}
	a, m, z := tr.Lookup("a"), tr.Lookup("d/m"), tr.Lookup("d/z")
	if a.HardLink != nil || m.HardLink != a || z.HardLink != a {
		t.Errorf("HardLink: a→%p d/m→%p d/z→%p, want nil, %p, %p", a.HardLink, m.HardLink, z.HardLink, a, a)
	}
	for _, n := range []*Node{a, m, z} {
		if n.Nlink != 3 {
			t.Errorf("%s: Nlink %d, want 3", n.Path(), n.Nlink)
		}
	}
	if s := tr.Lookup("solo"); s.Nlink != 1 || s.HardLink != nil {
		t.Errorf("solo: Nlink %d HardLink %v", s.Nlink, s.HardLink)
	}
}

func TestWalkDirModeBits(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no setuid bits on Windows")
	}
	dir := t.TempDir()
	p := mkfile(t, dir, "suid", "x")
	if err := os.Chmod(p, os.ModeSetuid|0o755); err != nil {
		t.Fatal(err)
	}
	d := filepath.Join(dir, "tmp")
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d, os.ModeSticky|0o777); err != nil {
		t.Fatal(err)
	}
	tr, err := WalkDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m := tr.Lookup("suid").Mode; m != 0o4755 {
		t.Errorf("suid mode %o", m)
	}
	if m := tr.Lookup("tmp").Mode; m != 0o1777 {
		t.Errorf("sticky dir mode %o", m)
	}
}

func TestTimes(t *testing.T) {
	// not parallel: t.Setenv.
	dir := t.TempDir()
	old := time.Date(2001, 2, 3, 4, 5, 6, 700, time.UTC)
	recent := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	pOld, pNew := mkfile(t, dir, "old", "o"), mkfile(t, dir, "new", "n")
	if err := os.Chtimes(pOld, old, old); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(pNew, recent, recent); err != nil {
		t.Fatal(err)
	}

	tr, err := WalkDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := tr.Lookup("old"); !n.Mtime.Equal(old) || !n.Atime.Equal(old) || n.Mtime.Location() != time.UTC {
		t.Errorf("own times: mtime %v atime %v", n.Mtime, n.Atime)
	}

	// -T replaces every time.
	ts := time.Unix(1234567890, 0).UTC()
	tr, err = WalkDir(dir, &Options{Timestamp: ts})
	if err != nil {
		t.Fatal(err)
	}
	tr.Walk(func(p string, n *Node) error {
		for _, tm := range []time.Time{n.Atime, n.Mtime, n.Ctime, n.Birthtime} {
			if !tm.Equal(ts) {
				t.Errorf("-T: %s has time %v", p, tm)
			}
		}
		return nil
	})

	// SOURCE_DATE_EPOCH clamps later times only.
	t.Setenv(SourceDateEpochEnv, "1600000000")
	opts, err := OptionsFromEnv(nil)
	if err != nil {
		t.Fatal(err)
	}
	sde := time.Unix(1600000000, 0).UTC()
	tr, err = WalkDir(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if n := tr.Lookup("old"); !n.Mtime.Equal(old) {
		t.Errorf("SDE changed an earlier mtime: %v", n.Mtime)
	}
	tr.Walk(func(p string, n *Node) error {
		for _, tm := range []time.Time{n.Atime, n.Mtime, n.Ctime, n.Birthtime} {
			if tm.After(sde) {
				t.Errorf("SDE: %s has time %v after %v", p, tm, sde)
			}
		}
		return nil
	})
	if n := tr.Lookup("new"); !n.Mtime.Equal(sde) {
		t.Errorf("SDE: new mtime %v, want %v", n.Mtime, sde)
	}
}

func TestOptionsFromEnv(t *testing.T) {
	// not parallel: t.Setenv (SOURCE_DATE_EPOCH).
	t.Setenv(SourceDateEpochEnv, "")
	if o, err := OptionsFromEnv(nil); err != nil || !o.Timestamp.IsZero() || o.ClampTimes {
		t.Errorf("empty: %v %v", o, err)
	}
	for _, bad := range []string{"yesterday", "-5", "1.5"} {
		t.Setenv(SourceDateEpochEnv, bad)
		_, err := OptionsFromEnv(nil)
		if !errors.Is(err, ErrTimestamp) || !contains(err.Error(), SourceDateEpochEnv) {
			t.Errorf("%q: error %v does not name the variable", bad, err)
		}
	}
}

func TestParseTimestamp(t *testing.T) {
	t.Parallel()
	if ts, err := ParseTimestamp("", "1700000000"); err != nil || ts.Unix() != 1700000000 || ts.Location() != time.UTC {
		t.Errorf("epoch: %v %v", ts, err)
	}
	if ts, err := ParseTimestamp("", "0x10"); err != nil || ts.Unix() != 16 {
		t.Errorf("hex epoch: %v %v", ts, err)
	}
	dir := t.TempDir()
	p := mkfile(t, dir, "stamp", "")
	mt := time.Date(2011, 11, 11, 11, 11, 11, 0, time.UTC)
	if err := os.Chtimes(p, time.Unix(5, 0), mt); err != nil {
		t.Fatal(err)
	}
	if ts, err := ParseTimestamp("", p); err != nil || !ts.Equal(mt) {
		t.Errorf("file: %v %v, want %v", ts, err, mt)
	}
	// A relative path is taken from dir; a file wins over a number, as in
	// makefs.
	if ts, err := ParseTimestamp(dir, "stamp"); err != nil || !ts.Equal(mt) {
		t.Errorf("relative file: %v %v, want %v", ts, err, mt)
	}
	mkfile(t, dir, "42", "")
	if err := os.Chtimes(filepath.Join(dir, "42"), mt, mt); err != nil {
		t.Fatal(err)
	}
	if ts, err := ParseTimestamp(dir, "42"); err != nil || !ts.Equal(mt) {
		t.Errorf("file named 42: %v %v, want its time %v", ts, err, mt)
	}
	if _, err := ParseTimestamp("", filepath.Join(t.TempDir(), "none")); !errors.Is(err, ErrTimestamp) {
		t.Errorf("missing file: %v", err)
	}
}

func TestFromMapFS(t *testing.T) {
	t.Parallel()
	mt := time.Date(2020, 5, 6, 7, 8, 9, 0, time.UTC)
	fsys := fstest.MapFS{
		"top/b.txt":       {Data: []byte("bee"), Mode: 0o640, ModTime: mt},
		"top/A/c":         {Data: []byte("sea"), Mode: fs.ModeSetuid | 0o755, ModTime: mt},
		"top/A":           {Mode: fs.ModeDir | 0o750, ModTime: mt},
		"top/ln":          {Data: []byte("b.txt"), Mode: fs.ModeSymlink | 0o777, ModTime: mt},
		"top/pipe":        {Mode: fs.ModeNamedPipe | 0o600, ModTime: mt},
		"top/dev":         {Mode: fs.ModeDevice | fs.ModeCharDevice | 0o600, ModTime: mt},
		"other/unrelated": {Data: []byte("x")},
	}
	tr, err := FromFS(fsys, "top", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".", "A", "A/c", "b.txt", "dev", "ln", "pipe"}
	if got := paths(t, tr); !slices.Equal(got, want) {
		t.Errorf("order %q, want %q", got, want)
	}
	types := map[string]Type{"A": TypeDir, "A/c": TypeFile, "b.txt": TypeFile, "dev": TypeChar, "ln": TypeSymlink, "pipe": TypeFIFO}
	for p, typ := range types {
		if n := tr.Lookup(p); n.Type != typ {
			t.Errorf("%s: type %v, want %v", p, n.Type, typ)
		}
	}
	if n := tr.Lookup("A/c"); n.Mode != 0o4755 || n.UID != 0 || !n.Mtime.Equal(mt) || n.Size != 3 {
		t.Errorf("A/c: mode %o uid %d mtime %v size %d", n.Mode, n.UID, n.Mtime, n.Size)
	}
	if n := tr.Lookup("ln"); n.Link != "b.txt" || n.Size != 5 {
		t.Errorf("ln: %q %d", n.Link, n.Size)
	}
	f, err := tr.Lookup("b.txt").Open()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(f)
	f.Close()
	if string(b) != "bee" {
		t.Errorf("contents %q", b)
	}
	if _, err := FromFS(fsys, "top/b.txt", nil); err == nil {
		t.Error("FromFS of a file: no error")
	}
}

func TestFromDirFSMatchesWalkDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first := mkfile(t, dir, "x/one", "1")
	mkfile(t, dir, "two", "22")
	if err := os.Link(first, filepath.Join(dir, "hard")); err != nil {
		t.Skip(err)
	}
	if err := os.Symlink("two", filepath.Join(dir, "sym")); err != nil {
		t.Skip(err)
	}
	ts := time.Unix(99, 0)
	w, err := WalkDir(dir, &Options{Timestamp: ts})
	if err != nil {
		t.Fatal(err)
	}
	f, err := FromFS(os.DirFS(dir), ".", &Options{Timestamp: ts})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := dump(w), dump(f); a != b {
		t.Errorf("WalkDir and FromFS(os.DirFS) differ:\n%s\n---\n%s", a, b)
	}
}

// dump describes a tree's metadata (not its sources) line by line.
func dump(tr *Tree) string {
	var s []byte
	tr.Walk(func(p string, n *Node) error {
		hl := ""
		if n.HardLink != nil {
			hl = n.HardLink.Path()
		}
		s = fmt.Appendf(s, "%s %v %o %d:%d %q/%q size=%d link=%q rdev=%d flags=%#x nlink=%d hl=%q a=%v m=%v c=%v b=%v\n",
			p, n.Type, n.Mode, n.UID, n.GID, n.Uname, n.Gname, n.Size, n.Link, n.Rdev, n.Flags, n.Nlink, hl,
			n.Atime.UnixNano(), n.Mtime.UnixNano(), n.Ctime.UnixNano(), n.Birthtime.UnixNano())
		return nil
	})
	return string(s)
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func TestDevNumbers(t *testing.T) {
	t.Parallel()
	for _, c := range [][2]uint32{{0, 0}, {1, 3}, {8, 1}, {259, 65536}, {4095, 255}, {4096, 1 << 20}, {0xffffffff, 0xffffffff}} {
		d := Mkdev(c[0], c[1])
		if Major(d) != c[0] || Minor(d) != c[1] {
			t.Errorf("Mkdev(%d,%d) = %#x → %d,%d", c[0], c[1], d, Major(d), Minor(d))
		}
	}
	if Mkdev(8, 1) != 0x801 {
		t.Errorf("Mkdev(8,1) = %#x, want 0x801 (Linux encoding)", Mkdev(8, 1))
	}
}
