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

// TestWriteMetaBgPast2To32Blocks compares the writer with the reference
// for -O meta_bg without ^resize_inode past 2^32 blocks (1 KiB blocks,
// 4 TiB and 128 MiB, sparse), which mke2fs takes: it turns resize_inode
// off there before it checks the two. With FIXTUREGEN_LONG only, on a
// tmpfs (on a disk file system the two images' metadata took a minute).
func TestWriteMetaBgPast2To32Blocks(t *testing.T) {
	t.Parallel()
	if !tooltest.Long() {
		t.Skip("FIXTUREGEN_LONG: two 4 TiB images on a tmpfs")
	}
	sameSparseAsReferenceWith(t, tooltest.Tmpfs(t), Options{Size: 4<<40 + 128<<20, BlockSize: 1024, Features: []string{"meta_bg"}},
		"4194432m", "-b", "1024", "-O", "meta_bg")
}
