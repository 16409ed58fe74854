package tooltest

import (
	"errors"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// NestedTree returns a tree of depth nested directories named "d", for the
// writers' depth-limit tests.
func NestedTree(depth int) *fstree.Tree {
	root := &fstree.Node{Name: ".", Type: fstree.TypeDir, Mode: 0o755}
	n := root
	for range depth {
		c := &fstree.Node{Name: "d", Type: fstree.TypeDir, Mode: 0o755, Parent: n, Nlink: 2, Mtime: time.Unix(0, 0)}
		n.Children = []*fstree.Node{c}
		n = c
	}
	return &fstree.Tree{Root: root}
}

// CheckDepthLimit checks a writer's depth limit: build (a format's Build,
// wrapped) makes the deepest tree fstree.MaxPath allows, and refuses one of
// 100,000 levels with an error wrapping fstree.ErrPathTooLong (without the
// check, such a tree took memory quadratic in the depth and ended in the
// runtime's out-of-memory crash).
func CheckDepthLimit(t *testing.T, build func(src fstree.Source) error) {
	t.Helper()
	deepest := (fstree.MaxPath + 1) / 2
	if err := build(NestedTree(deepest)); err != nil {
		t.Errorf("depth %d: %v", deepest, err)
	}
	if err := build(NestedTree(100_000)); !errors.Is(err, fstree.ErrPathTooLong) {
		t.Errorf("depth 100000: error %v, want fstree.ErrPathTooLong", err)
	}
}
