package fstree

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// deepFS is an fs.FS of nested directories "d/d/d/..." depth levels deep.
type deepFS struct{ depth int }

func (f deepFS) Open(name string) (fs.File, error) {
	level := 0
	if name != "." {
		level = strings.Count(name, "/") + 1
	}
	if level > f.depth || name != "." && name != strings.Repeat("d/", level-1)+"d" {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	m := fstest.MapFS{}
	if level < f.depth {
		m["d"] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
	} else {
		m["."] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
	}
	return m.Open(".")
}

// deepTree returns a tree of depth nested directories called "d".
func deepTree(depth int) *Tree {
	root := &Node{Name: ".", Type: TypeDir, Mode: 0o755}
	n := root
	for range depth {
		c := &Node{Name: "d", Type: TypeDir, Mode: 0o755, Parent: n, Mtime: time.Unix(0, 0)}
		n.Children = []*Node{c}
		n = c
	}
	return &Tree{Root: root}
}

// TestPathLimit checks that FromFS and CheckPaths refuse a tree deeper
// than MaxPath allows with a short error, and accept one at the limit
// (fails without the limit: FromFS walked any depth, with memory quadratic
// in it).
func TestPathLimit(t *testing.T) {
	t.Parallel()
	limit := (MaxPath + 1) / 2 // "d/d/.../d" of MaxPath bytes
	if _, err := FromFS(deepFS{limit}, ".", nil); err != nil {
		t.Errorf("depth %d: %v", limit, err)
	}
	if err := deepTree(limit).CheckPaths(); err != nil {
		t.Errorf("CheckPaths, depth %d: %v", limit, err)
	}
	_, err := FromFS(deepFS{100_000}, ".", nil)
	if !errors.Is(err, ErrPathTooLong) || len(err.Error()) > 200 || !strings.Contains(err.Error(), "2049 levels deep") {
		t.Errorf("FromFS, depth 100000: error %v", err)
	}
	err = deepTree(100_000).CheckPaths()
	if !errors.Is(err, ErrPathTooLong) || len(err.Error()) > 200 {
		t.Errorf("CheckPaths, depth 100000: error %v", err)
	}
}

// TestSpecPathLimit checks that a spec nesting directories deeper than
// MaxPath allows is refused at the line that goes too deep (fails without
// the limit: 100,000 nested entries made ApplySpec's walk run out of
// memory).
func TestSpecPathLimit(t *testing.T) {
	t.Parallel()
	limit := (MaxPath + 1) / 2
	spec := func(depth int) string {
		return "#mtree\n/set type=dir mode=0755\n.\n" + strings.Repeat("d\n", depth)
	}
	if _, err := ReadSpec(strings.NewReader(spec(limit)), "deep.mtree"); err != nil {
		t.Errorf("depth %d: %v", limit, err)
	}
	_, err := ReadSpec(strings.NewReader(spec(100_000)), "deep.mtree")
	if !errors.Is(err, ErrPathTooLong) || !strings.HasPrefix(err.Error(), fmt.Sprintf("deep.mtree:%d: ", limit+4)) {
		t.Errorf("depth 100000: error %.200v, want ErrPathTooLong at line %d", err, limit+4)
	}
}
