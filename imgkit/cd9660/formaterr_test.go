package cd9660

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
)

// TestFormatErrorPlace checks that a malformed image gives an
// *imgfmt.FormatError wrapping ErrFormat that says the byte and the
// ECMA-119 field the reader refused.
func TestFormatErrorPlace(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "A.TXT"), []byte("hello"), 0o644)
	img, err := Build(fstree.Dir(src), &Options{})
	if err != nil {
		t.Fatal(err)
	}
	const pvd = systemAreaSectors * SectorSize
	root := int64(binary.LittleEndian.Uint32(img[pvd+156+2:])) * SectorSize
	child := root + int64(img[root]) // "." then ".."
	child += int64(img[child])
	for _, c := range []struct {
		name  string
		mod   func(b []byte)
		read  bool // the error comes from ReadDir, else from NewReader
		off   int64
		field string
		msg   string
	}{
		{"no primary volume descriptor", func(b []byte) { b[pvd+1] = 'X' }, false, pvd, "", "cd9660: malformed image: no primary volume descriptor in the volume descriptor set at byte 0x8000"},
		{"Logical Block Size", func(b []byte) { put723(b[pvd+128:], 1000) }, false, pvd + 128, "Logical Block Size", "cd9660: malformed image: Logical Block Size 1000 at byte 0x8080 is not 512, 1024 or 2048"},
		{"root record", func(b []byte) { b[pvd+156] = 3 }, false, pvd + 156, "Directory Record for Root Directory", ""},
		{"directory record", func(b []byte) { b[child] = 10 }, true, child, "Length of Directory Record", fmt.Sprintf("cd9660: malformed image: bad directory record at byte %#x", child)},
	} {
		b := bytes.Clone(img)
		c.mod(b)
		f, err := NewReader(bytes.NewReader(b), int64(len(b)))
		if c.read && err == nil {
			_, err = fs.ReadDir(f, ".")
		}
		var fe *imgfmt.FormatError
		if !errors.Is(err, ErrFormat) || !errors.As(err, &fe) {
			t.Errorf("%s: %v, want an *imgfmt.FormatError wrapping ErrFormat", c.name, err)
			continue
		}
		if fe.Format != "cd9660" || fe.Off != c.off || fe.Field != c.field {
			t.Errorf("%s: Format %q Off %#x Field %q, want cd9660 %#x %q (%v)", c.name, fe.Format, fe.Off, fe.Field, c.off, c.field, err)
		}
		if c.msg != "" && fe.Error() != c.msg {
			t.Errorf("%s: %q, want %q", c.name, fe.Error(), c.msg)
		}
	}
}
