package msdos

import (
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestDepthLimit builds the deepest tree fstree.MaxPath allows and refuses
// a deeper one (tooltest.CheckDepthLimit).
func TestDepthLimit(t *testing.T) {
	t.Parallel()
	tooltest.CheckDepthLimit(t, func(src fstree.Source) error {
		_, err := Build(src, nil)
		return err
	})
}
