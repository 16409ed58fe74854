package msdos

import (
	"errors"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestDepthLimit builds the deepest tree fstree.MaxPath allows and refuses
// a deeper one with an error wrapping fstree.ErrPathTooLong (without the
// check, 100,000 levels took memory quadratic in the depth and ended in the
// runtime's out-of-memory crash).
func TestDepthLimit(t *testing.T) {
	t.Parallel()
	if _, err := Build(tooltest.NestedTree((fstree.MaxPath+1)/2), nil); err != nil {
		t.Errorf("depth %d: %v", (fstree.MaxPath+1)/2, err)
	}
	if _, err := Build(tooltest.NestedTree(100_000), nil); !errors.Is(err, fstree.ErrPathTooLong) {
		t.Errorf("depth 100000: error %v, want fstree.ErrPathTooLong", err)
	}
}
