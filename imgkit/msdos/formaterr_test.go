package msdos

import (
	"errors"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
)

// TestFormatErrorPlace checks that a malformed image gives an
// *imgfmt.FormatError wrapping ErrFormat that says the byte and field
// the reader refused.
func TestFormatErrorPlace(t *testing.T) {
	t.Parallel()
	_, tr := buildTree(t, sampleFiles())
	img := writeImage(t, tr, &Options{FATType: 16})
	fsys := openImage(t, img)
	ent, err := fsys.Entry("A Long File Name.text")
	if err != nil {
		t.Fatal(err)
	}
	fatEntOff := func(c uint32) int64 { return fsys.fatOff + int64(c)*2 }
	loopAt := fatEntOff(ent.Chain()[5])
	for _, c := range []struct {
		name  string
		mod   func(b []byte)
		open  bool // the error comes at Open, else at ReadFile
		off   int64
		field string
		msg   string
	}{
		{"signature", func(b []byte) { b[510] = 0 }, true, 0x1fe, "", "msdos: malformed image: no boot signature 0x55 0xaa at byte 0x1fe"},
		{"bytes per sector", func(b []byte) { b[11], b[12] = 0, 3 }, true, 0xb, "BPB_BytsPerSec", "msdos: malformed image: BPB_BytsPerSec 768 at byte 0xb is not 512, 1024, 2048 or 4096"},
		{"reserved", func(b []byte) { b[14], b[15] = 0, 0 }, true, 0xe, "BPB_RsvdSecCnt", "msdos: malformed image: BPB_RsvdSecCnt at byte 0xe is 0"},
		{"no FATs", func(b []byte) { b[16] = 0 }, true, 0x10, "BPB_NumFATs", "msdos: malformed image: BPB_NumFATs at byte 0x10 is 0"},
		{"root entries", func(b []byte) { b[17], b[18] = 0, 0 }, true, 0x11, "BPB_RootEntCnt", ""},
		{"FAT too small", func(b []byte) { b[19], b[20] = 0xff, 0xff }, true, 0x16, "BPB_FATSz16", "msdos: malformed image: FAT of 8192 bytes cannot hold 65470 clusters"},
		{"metadata fills the volume", func(b []byte) { b[19], b[20] = 10, 0 }, true, 0x13, "BPB_TotSec16", ""},
		{"chain loop", func(b []byte) { le.PutUint16(b[loopAt:], uint16(ent.Chain()[2])) }, false, loopAt, "", ""},
	} {
		f, err := corrupt(t, img, c.mod)
		if !c.open {
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			_, err = f.ReadFile("A Long File Name.text")
		}
		var fe *imgfmt.FormatError
		if !errors.Is(err, ErrFormat) || !errors.As(err, &fe) {
			t.Errorf("%s: %v, want an *imgfmt.FormatError wrapping ErrFormat", c.name, err)
			continue
		}
		if fe.Format != "msdos" || fe.Off != c.off || fe.Field != c.field {
			t.Errorf("%s: Format %q Off %#x Field %q, want msdos %#x %q (%v)", c.name, fe.Format, fe.Off, fe.Field, c.off, c.field, err)
		}
		if c.msg != "" && fe.Error() != c.msg {
			t.Errorf("%s: %q, want %q", c.name, fe.Error(), c.msg)
		}
	}
}
