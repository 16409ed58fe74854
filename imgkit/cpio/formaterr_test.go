package cpio

import (
	"bytes"
	"errors"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
)

// TestFormatErrorPlace checks that a malformed archive gives an
// *imgfmt.FormatError wrapping ErrFormat that says the byte and the
// header field the reader refused.
func TestFormatErrorPlace(t *testing.T) {
	t.Parallel()
	files := map[string]string{"hello": "hello, world\n"}
	newc := mustBuild(t, files, &Options{BlockSize: 1})
	odc := mustBuild(t, files, &Options{BlockSize: 1, Format: FormatODC})
	// the entry "hello" follows the root ".": at byte 112 in newc (110 +
	// 2 bytes, padded to 4), at byte 78 in odc (76 + 2)
	set := func(b []byte, off int, s string) []byte {
		b = bytes.Clone(b)
		copy(b[off:], s)
		return b
	}
	for _, c := range []struct {
		name  string
		b     []byte
		off   int64
		field string
		msg   string
	}{
		{"bad magic", set(newc, 112, "070703"), 112, "c_magic", `cpio: not a valid archive: bad magic "070703" (want 070701, 070702 or 070707) at byte 0x70`},
		{"bad digit", set(newc, 112+6, "0000000G"), 112 + 6, "c_ino", `cpio: not a valid archive: c_ino "0000000G" is not a number at byte 0x76`},
		{"zero namesize", set(newc, 112+94, "00000000"), 112 + 94, "c_namesize", "cpio: not a valid archive: c_namesize is 0 at byte 0xce"},
		{"name without its NUL", set(newc, 112+110+5, "!"), 112 + 110, "c_name", ""},
		{"lying filesize", set(newc, 112+54, "7FFFFFFF"), 112 + 54, "c_filesize", ""},
		{"odc namesize", set(odc, 78+59, "010000"), 78 + 59, "c_namesize", ""},
		{"odc filesize", set(odc, 78+65, "17777777777"), 78 + 65, "c_filesize", ""},
		{"truncated header", newc[:150], 112, "", ""},
	} {
		_, err := NewReader(bytes.NewReader(c.b), int64(len(c.b)))
		var fe *imgfmt.FormatError
		if !errors.Is(err, ErrFormat) || !errors.As(err, &fe) {
			t.Errorf("%s: %v, want an *imgfmt.FormatError wrapping ErrFormat", c.name, err)
			continue
		}
		if fe.Format != "cpio" || fe.Off != c.off || fe.Field != c.field {
			t.Errorf("%s: Format %q Off %#x Field %q, want cpio %#x %q (%v)", c.name, fe.Format, fe.Off, fe.Field, c.off, c.field, err)
		}
		if c.msg != "" && err.Error() != c.msg {
			t.Errorf("%s: %q, want %q", c.name, err.Error(), c.msg)
		}
	}
}
