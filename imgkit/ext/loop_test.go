package ext

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestDirectoryLoopRefused points the entry deep.txt of dir/sub at the
// directory dir, above it, and expects a walk of the image to end with an
// error wrapping ErrFormat rather than to go round for ever.
func TestDirectoryLoopRefused(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, refMke2fs)
	src := mkTree(t)
	img := mke2fs(t, refMke2fs, src, "32M", "-N", "6000", "-t", "ext2", "-b", "1024")
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	f := openImage(t, img)
	sub, err := f.Inode("dir/sub")
	if err != nil {
		t.Fatal(err)
	}
	up, err := f.Inode("dir")
	if err != nil {
		t.Fatal(err)
	}
	blk := int64(le.Uint32(sub.raw.iBlockWord(0))) * f.g.bsize
	i := bytes.Index(b[blk:blk+f.g.bsize], []byte("deep.txt"))
	if i < dirEntryHeader {
		t.Fatal("no deep.txt entry in dir/sub's first block")
	}
	le.PutUint32(b[blk+int64(i)-dirEntryHeader:], up.Ino)
	b[blk+int64(i)-1] = ftDir
	g, err := NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = fs.WalkDir(g, ".", func(p string, d fs.DirEntry, err error) error {
		if n++; n > 10*manyEntries {
			t.Fatal("walk does not end")
		}
		return err
	})
	if !errors.Is(err, ErrFormat) {
		t.Errorf("walk: %v, want an error wrapping ErrFormat", err)
	}
}

// TestExtentLoopRefused gives big.bin an extent tree whose index block
// points at itself, and expects reading it to fail with ErrFormat.
func TestExtentLoopRefused(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, refMke2fs)
	src := mkTree(t)
	img := mke2fs(t, refMke2fs, src, "32M", "-N", "6000", "-t", "ext4", "-b", "4096")
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	f := openImage(t, img)
	in, err := f.Inode("big.bin")
	if err != nil {
		t.Fatal(err)
	}
	ext, err := f.Extents("big.bin")
	if err != nil || len(ext) == 0 {
		t.Fatalf("extents %v, %v", ext, err)
	}
	loop := ext[0].Start // the file's first data block becomes the index block
	node := func(h []byte, maxEnt int) {
		le.PutUint16(h[0:], extentMagic)
		le.PutUint16(h[2:], 1)
		le.PutUint16(h[4:], uint16(maxEnt))
		le.PutUint16(h[6:], 1) // eh_depth: an index node
		le.PutUint32(h[12:], 0)
		le.PutUint32(h[16:], uint32(loop))
		le.PutUint16(h[20:], 0)
	}
	node(b[in.off+0x28:], 4)
	node(b[int64(loop)*f.g.bsize:], 340)
	g, err := NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.ReadFile("big.bin"); !errors.Is(err, ErrFormat) {
		t.Errorf("ReadFile: %v, want an error wrapping ErrFormat", err)
	}
}
