//go:build unix

package ext

import (
	"errors"
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"
	"testing/fstest"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
)

// hostNumbers returns the inode and device numbers of a file of the host
// as fi describes it.
func hostNumbers(fi fs.FileInfo) (ino, rdev uint64) {
	st := fi.Sys().(*syscall.Stat_t)
	return uint64(st.Ino), uint64(st.Rdev)
}

// TestUpdateFileFIFO checks that UpdateFile refuses a FIFO as not a
// regular file at once, not waiting for a writer to open it.
func TestUpdateFileFIFO(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err) // no FIFOs here
	}
	err := UpdateFile(fifo, fstree.FS(fstest.MapFS{}), &Options{Size: 8 << 20})
	if err == nil || !errors.Is(err, imgfmt.ErrNotRegular) {
		t.Errorf("a FIFO: %v, want not a regular file", err)
	}
}
