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

// TestXattrFormatErrors breaks the extended attributes of the fuzz seed
// that has them (seed3: in an inode's body, in a block, in an ea_inode)
// and checks that Xattrs gives an *imgfmt.FormatError wrapping ErrFormat
// at the byte and field refused, and that Fields fails the same way.
func TestXattrFormatErrors(t *testing.T) {
	t.Parallel()
	img := seedImage(t, "seed3")
	good, err := NewReader(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		t.Fatal(err)
	}
	recs := map[string]xattrRec{}
	var aIno *Inode
	for _, p := range []string{"a.txt", "d"} {
		in, err := good.Inode(p)
		if err != nil {
			t.Fatal(err)
		}
		rs, _, err := good.xattrs(in)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			recs[r.Name] = r
		}
		if p == "a.txt" {
			aIno = in
		}
	}
	in, blk, ea := recs["user.in"], recs["trusted.t"], recs["user.ea"]
	if in.InBlock || !blk.InBlock || ea.Inum == 0 || aIno.FileACL == 0 {
		t.Fatalf("seed3's attributes are not where the test expects them: %+v %+v %+v", in, blk, ea)
	}
	bo := int64(aIno.FileACL) * good.g.bsize
	for _, c := range []struct {
		name  string
		path  string
		mod   func(b []byte)
		off   int64
		field string
	}{
		{"h_magic", "a.txt", func(b []byte) { b[bo] ^= 1 }, bo, "h_magic"},
		{"h_blocks", "a.txt", func(b []byte) { le.PutUint32(b[bo+8:], 2) }, bo + 8, "h_blocks"},
		{"i_file_acl_lo", "a.txt", func(b []byte) { le.PutUint32(b[aIno.off+0x68:], 1<<30) }, aIno.off + 0x68, "i_file_acl_lo"},
		{"block e_value_offs", "a.txt", func(b []byte) { le.PutUint16(b[blk.entryOff+2:], 0xfff0) }, blk.entryOff + 2, "e_value_offs"},
		{"block e_value_size", "a.txt", func(b []byte) { le.PutUint32(b[blk.entryOff+8:], 1<<31) }, blk.entryOff + 2, "e_value_offs"},
		{"inode e_name_len", "a.txt", func(b []byte) { b[in.entryOff] = 255 }, in.entryOff, "e_name_len"},
		{"inode e_value_offs", "a.txt", func(b []byte) { le.PutUint16(b[in.entryOff+2:], 0) }, in.entryOff + 2, "e_value_offs"},
		{"e_value_inum", "d", func(b []byte) { le.PutUint32(b[ea.entryOff+4:], rootIno) }, good.mustInodeOff(t, rootIno), ""},
		{"ea_inode e_value_size", "d", func(b []byte) { le.PutUint32(b[ea.entryOff+8:], xattrSizeMax+1) }, ea.entryOff + 8, "e_value_size"},
	} {
		b := bytes.Clone(img)
		c.mod(b)
		f, err := NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		_, err = f.Xattrs(c.path)
		var fe *imgfmt.FormatError
		if !errors.Is(err, ErrFormat) || !errors.As(err, &fe) {
			t.Errorf("%s: %v, want an *imgfmt.FormatError wrapping ErrFormat", c.name, err)
			continue
		}
		if fe.Off != c.off || fe.Field != c.field {
			t.Errorf("%s: Off %#x Field %q, want %#x %q (%v)", c.name, fe.Off, fe.Field, c.off, c.field, err)
		}
		if _, err := Fields(bytes.NewReader(b), int64(len(b))); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: Fields: %v, want ErrFormat", c.name, err)
		}
	}
}

// mustInodeOff returns the byte offset of inode ino.
func (f *FS) mustInodeOff(t *testing.T, ino uint32) int64 {
	t.Helper()
	off, err := f.inodeOff(ino)
	if err != nil {
		t.Fatal(err)
	}
	return off
}
