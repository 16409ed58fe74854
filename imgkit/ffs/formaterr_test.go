package ffs

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
)

// TestFormatErrorPlace checks that a malformed image gives an
// *imgfmt.FormatError wrapping ErrFormat that says the byte and the
// fs.h or dinode.h field the reader refused, for UFS1 and UFS2.
func TestFormatErrorPlace(t *testing.T) {
	t.Parallel()
	for _, v := range []int{1, 2} {
		img := fuzzSeed(t, v)
		f, err := NewReader(bytes.NewReader(img), int64(len(img)))
		if err != nil {
			t.Fatal(err)
		}
		sb := f.g.sblockloc
		in, err := f.Inode("d")
		if err != nil {
			t.Fatal(err)
		}
		ioff := f.g.inodeOff(int64(in.Ino))
		var diSize, diBlocks int64
		if v == 1 {
			d := (*dinode1)(in.raw)
			diSize, diBlocks = ioff+fieldOff(in.raw, d.diSize()), ioff+fieldOff(in.raw, d.diBlocks())
		} else {
			d := (*dinode2)(in.raw)
			diSize, diBlocks = ioff+fieldOff(in.raw, d.diSize()), ioff+fieldOff(in.raw, d.diBlocks())
		}
		put32 := func(b []byte, off int64, x int64) { f.o.put32(b[off:], x) }
		for _, c := range []struct {
			name  string
			mod   func(b []byte)
			read  func(f *FS, b []byte) error // nil: the error comes from NewReader
			off   int64
			field string
			msg   string
		}{
			{"fs_bsize", func(b []byte) { put32(b, sb+48, 1000) }, nil, sb + 48, "fs_bsize", fmt.Sprintf("ffs: malformed image: superblock at byte %#x: bad fs_bsize 1000", sb)},
			{"fs_ncg", func(b []byte) { put32(b, sb+44, 0) }, nil, sb + 44, "fs_ncg", ""},
			{"fs_ipg", func(b []byte) { put32(b, sb+184, 3) }, nil, sb + 184, "fs_ipg", ""},
			{"di_size of a directory", func(b []byte) { f.o.put64(b[diSize:], 3) }, func(f *FS, _ []byte) error { _, err := f.ReadDir("d"); return err }, diSize, "di_size", ""},
			{"di_blocks", func(b []byte) {
				if v == 1 {
					put32(b, diBlocks, 1<<30)
				} else {
					f.o.put64(b[diBlocks:], 1<<40)
				}
			}, func(_ *FS, b []byte) error { _, err := Fields(bytes.NewReader(b), int64(len(b))); return err }, diBlocks, "di_blocks", ""},
		} {
			b := bytes.Clone(img)
			c.mod(b)
			g, err := NewReader(bytes.NewReader(b), int64(len(b)))
			if c.read != nil {
				if err != nil {
					t.Fatalf("UFS%d %s: %v", v, c.name, err)
				}
				err = c.read(g, b)
			}
			var fe *imgfmt.FormatError
			if !errors.Is(err, ErrFormat) || !errors.As(err, &fe) {
				t.Errorf("UFS%d %s: %v, want an *imgfmt.FormatError wrapping ErrFormat", v, c.name, err)
				continue
			}
			if fe.Format != "ffs" || fe.Off != c.off || fe.Field != c.field {
				t.Errorf("UFS%d %s: Format %q Off %#x Field %q, want ffs %#x %q (%v)", v, c.name, fe.Format, fe.Off, fe.Field, c.off, c.field, err)
			}
			if c.msg != "" && fe.Error() != c.msg {
				t.Errorf("UFS%d %s: %q, want %q", v, c.name, fe.Error(), c.msg)
			}
		}
	}
}
