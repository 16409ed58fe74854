package inspect

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
	"github.com/fixturegen/fixturegen/imgkit/mkimg"
)

// TestDiffFormatErrorPlace checks that a side diff cannot describe
// because of an *imgfmt.FormatError is reported with the error's field
// and byte, in the words of a change's line.
func TestDiffFormatErrorPlace(t *testing.T) {
	t.Parallel()
	a, err := mkimg.Build(&mkimg.Options{Scheme: "gpt", FreeBSDTestMode: true, Partitions: []mkimg.Partition{{Type: "freebsd-ufs", Size: 4096}}})
	if err != nil {
		t.Fatal(err)
	}
	b := bytes.Clone(a)
	b[512+16] ^= 1 // both headers' HeaderCRC32
	b[len(b)-512+16] ^= 1
	rep, err := Diff(bytes.NewReader(a), int64(len(a)), bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var fe *imgfmt.FormatError
	if !errors.As(rep.ParseErrB, &fe) || fe.Off != 0x210 || fe.Field != "HeaderCRC32" || !errors.Is(rep.ParseErrB, mkimg.ErrFormat) {
		t.Fatalf("ParseErrB %v (%+v), want a FormatError of HeaderCRC32 at byte 0x210", rep.ParseErrB, fe)
	}
	var out strings.Builder
	if err := rep.Write(&out, "a.img", "b.img"); err != nil {
		t.Fatal(err)
	}
	want := "  b.img: HeaderCRC32 at byte 0x210: cannot be described: mkimg: malformed partition table: primary GPT header at byte 0x200: HeaderCRC32 "
	if !strings.Contains(out.String(), want) {
		t.Errorf("report lacks %q:\n%s", want, out.String())
	}
}
