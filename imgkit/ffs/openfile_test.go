package ffs_test

import (
	"bytes"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/ffs"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestOpenFileShape checks that an open file of the reader has the shape
// of every format's: a bad whence is fs.ErrInvalid, and Read, Seek and
// Close after Close are fs.ErrClosed.
func TestOpenFileShape(t *testing.T) {
	t.Parallel()
	src := fstree.FS(fstest.MapFS{"dir/f.txt": {Data: []byte("hello\n")}})
	img, err := ffs.Build(src, &ffs.Options{Timestamp: time.Unix(1e9, 0)})
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := ffs.NewReader(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		t.Fatal(err)
	}
	tooltest.CheckOpenFile(t, fsys, "dir/f.txt")
}
