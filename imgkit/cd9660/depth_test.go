package cd9660

import (
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestDepthLimit builds, under Rock Ridge (which keeps deep trees in
// place), the deepest tree fstree.MaxPath allows and refuses a deeper one
// (tooltest.CheckDepthLimit), as the other writers do.
func TestDepthLimit(t *testing.T) {
	t.Parallel()
	tooltest.CheckDepthLimit(t, func(src fstree.Source) error {
		_, err := Build(src, &Options{RockRidge: true})
		return err
	})
}
