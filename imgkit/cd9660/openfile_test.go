package cd9660_test

import (
	"bytes"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/cd9660"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestOpenFileShape checks that an open file of the reader has the shape
// of every format's: a bad whence is fs.ErrInvalid, and Read, Seek and
// Close after Close are fs.ErrClosed.
func TestOpenFileShape(t *testing.T) {
	t.Parallel()
	src := fstree.FS(fstest.MapFS{"dir/f.txt": {Data: []byte("hello\n")}})
	img, err := cd9660.Build(src, &cd9660.Options{RockRidge: true, Timestamp: time.Unix(1e9, 0)})
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := cd9660.NewReader(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		t.Fatal(err)
	}
	tooltest.CheckOpenFile(t, fsys, "dir/f.txt")
}
