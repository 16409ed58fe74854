package ext

import (
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestWriteBeyond2To32Blocks compares a 20 TiB ext4 (5 Gi blocks: no
// resize inode, the _hi halves of the block counts) of a small tree with
// the reference, on a tmpfs (an ext4 file holds at most 16 TiB). With
// FIXTUREGEN_LONG only: the two images take about 600 MB of the tmpfs.
func TestWriteBeyond2To32Blocks(t *testing.T) {
	t.Parallel()
	if !tooltest.Long() {
		t.Skip("FIXTUREGEN_LONG: two 20 TiB images on a tmpfs")
	}
	sameSparseAsReference(t, tooltest.Tmpfs(t), 20<<40, "20T")
}
