package ext

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
)

// seedImage returns the image of the fuzz seed name (an image the
// reference mke2fs made, see TestWriteFuzzSeeds).
func seedImage(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "fuzz", "FuzzOpen", name))
	if err != nil {
		t.Fatal(err)
	}
	_, lit, ok := strings.Cut(strings.TrimSpace(string(b)), "\n")
	if !ok || !strings.HasPrefix(lit, "[]byte(") {
		t.Fatalf("%s: not a []byte seed", name)
	}
	img, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lit, "[]byte("), ")"))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return []byte(img)
}

// TestFormatErrorPlace checks that a malformed image gives an
// *imgfmt.FormatError wrapping ErrFormat that says the byte and the
// field the reader refused: in the superblock, a group descriptor, an
// extent header and a directory entry.
func TestFormatErrorPlace(t *testing.T) {
	t.Parallel()
	ext2, ext4 := seedImage(t, "seed0"), seedImage(t, "seed1")
	good2, err := NewReader(bytes.NewReader(ext2), int64(len(ext2)))
	if err != nil {
		t.Fatal(err)
	}
	good4, err := NewReader(bytes.NewReader(ext4), int64(len(ext4)))
	if err != nil {
		t.Fatal(err)
	}
	deep, err := good4.Inode("d/e/deep")
	if err != nil || deep.Flags&extentsFL == 0 {
		t.Fatalf("d/e/deep: %v, want a file with extents", err)
	}
	root, err := good2.inode(rootIno)
	if err != nil {
		t.Fatal(err)
	}
	rootBlk := int64(le.Uint32(root.raw.iBlockWord(0))) * good2.g.bsize
	gd0 := good2.descOff(0)
	for _, c := range []struct {
		name  string
		img   []byte
		mod   func(b []byte)
		read  func(f *FS) error // what fails, after NewReader succeeds; nil when NewReader fails
		off   int64
		field string
		msg   string
	}{
		{"s_magic", ext2, func(b []byte) { b[0x438] = 0 }, nil, 0x438, "s_magic", "ext: malformed image: no s_magic 0xef53 at byte 0x438"},
		{"s_log_block_size", ext2, func(b []byte) { le.PutUint32(b[0x418:], 9) }, nil, 0x418, "s_log_block_size", "ext: malformed image: superblock field s_log_block_size at byte 0x418: bad value 9"},
		{"bg_inode_table_lo", ext2, func(b []byte) { le.PutUint32(b[gd0+8:], 0) }, nil, gd0 + 8, "bg_inode_table_lo", ""},
		{"eh_magic", ext4, func(b []byte) { b[deep.off+0x28] = 0 },
			func(f *FS) error { _, err := fs.ReadFile(f, "d/e/deep"); return err }, deep.off + 0x28, "eh_magic", ""},
		{"ee_len", ext4, func(b []byte) { le.PutUint16(b[deep.off+0x28+12+4:], 0) },
			func(f *FS) error { _, err := fs.ReadFile(f, "d/e/deep"); return err }, deep.off + 0x28 + 12 + 4, "ee_len", ""},
		{"rec_len", ext2, func(b []byte) { le.PutUint16(b[rootBlk+4:], 5) },
			func(f *FS) error { _, err := fs.ReadDir(f, "."); return err }, rootBlk + 4, "rec_len", ""},
	} {
		b := bytes.Clone(c.img)
		c.mod(b)
		f, err := NewReader(bytes.NewReader(b), int64(len(b)))
		if c.read != nil {
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			err = c.read(f)
		}
		var fe *imgfmt.FormatError
		if !errors.Is(err, ErrFormat) || !errors.As(err, &fe) {
			t.Errorf("%s: %v, want an *imgfmt.FormatError wrapping ErrFormat", c.name, err)
			continue
		}
		if fe.Format != "ext" || fe.Off != c.off || fe.Field != c.field {
			t.Errorf("%s: Format %q Off %#x Field %q, want ext %#x %q (%v)", c.name, fe.Format, fe.Off, fe.Field, c.off, c.field, err)
		}
		if c.msg != "" && fe.Error() != c.msg {
			t.Errorf("%s: %q, want %q", c.name, fe.Error(), c.msg)
		}
	}
}
