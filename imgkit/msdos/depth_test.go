package msdos

import (
	"errors"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// nested returns a tree of depth nested directories called "d".
func nested(depth int) *fstree.Tree {
	root := &fstree.Node{Name: ".", Type: fstree.TypeDir, Mode: 0o755}
	n := root
	for range depth {
		c := &fstree.Node{Name: "d", Type: fstree.TypeDir, Mode: 0o755, Parent: n, Nlink: 2, Mtime: time.Unix(0, 0)}
		n.Children = []*fstree.Node{c}
		n = c
	}
	return &fstree.Tree{Root: root}
}

// TestDepthLimit builds the deepest tree fstree.MaxPath allows and refuses
// a deeper one at once with an error wrapping fstree.ErrPathTooLong (fails
// without the check: 100,000 levels took memory quadratic in the depth).
func TestDepthLimit(t *testing.T) {
	t.Parallel()
	if _, err := Build(nested((fstree.MaxPath+1)/2), nil); err != nil {
		t.Errorf("depth %d: %v", (fstree.MaxPath+1)/2, err)
	}
	start := time.Now()
	_, err := Build(nested(100_000), nil)
	if !errors.Is(err, fstree.ErrPathTooLong) {
		t.Errorf("depth 100000: error %v, want fstree.ErrPathTooLong", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("depth 100000: %v to refuse", d)
	}
}
