package imgfmt

import (
	"errors"
	"fmt"
	"testing"
)

var errTest = errors.New("test: malformed image")

func TestFormatError(t *testing.T) {
	t.Parallel()
	fe := &FormatError{Format: "test", Off: 0xe, Field: "BPB_RsvdSecCnt", Msg: "BPB_RsvdSecCnt at byte 0xe is 0", Err: errTest}
	err := fmt.Errorf("reading: %w", fe)
	if got, want := err.Error(), "reading: test: malformed image: BPB_RsvdSecCnt at byte 0xe is 0"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, errTest) {
		t.Errorf("%v does not wrap its sentinel", err)
	}
	var got *FormatError
	if !errors.As(err, &got) || got != fe {
		t.Fatalf("errors.As: %v", got)
	}
	if w := fe.Where(); w != "BPB_RsvdSecCnt at byte 0xe" {
		t.Errorf("Where() = %q", w)
	}
	for _, c := range []struct {
		fe   FormatError
		want string
	}{
		{FormatError{Off: -1}, ""},
		{FormatError{Off: -1, Field: "fs_cgsize"}, "fs_cgsize"},
		{FormatError{Off: 0x200}, "byte 0x200"},
		{FormatError{Off: 0x200, In: "the qcow2 container's disk"}, "byte 0x200 of the qcow2 container's disk"},
	} {
		if w := c.fe.Where(); w != c.want {
			t.Errorf("%+v: Where() = %q, want %q", c.fe, w, c.want)
		}
	}
	if s := (&FormatError{Msg: "cluster_bits 8: want 9 to 21"}).Error(); s != "cluster_bits 8: want 9 to 21" {
		t.Errorf("without a sentinel: %q", s)
	}
}

func TestMoveFormatError(t *testing.T) {
	t.Parallel()
	fe := &FormatError{Format: "test", Off: 0xe, Msg: "bad", Err: errTest}
	inner := fmt.Errorf("p1: %w", fe)
	moved := MoveFormatError(inner, 0x100000, "")
	if moved.Error() != inner.Error() || !errors.Is(moved, errTest) {
		t.Errorf("moved: %v", moved)
	}
	var got *FormatError
	if !errors.As(moved, &got) || got.Off != 0x10000e || got.Format != "test" {
		t.Fatalf("moved: %+v", got)
	}
	if fe.Off != 0xe {
		t.Errorf("the inner error changed: %+v", fe)
	}
	// Moved twice, as a disk within a partition of a disk.
	twice := MoveFormatError(fmt.Errorf("disk: %w", moved), 0x200, "the vhd container's disk")
	if !errors.As(twice, &got) || got.Off != 0x10020e || got.In != "the vhd container's disk" {
		t.Fatalf("moved twice: %+v", got)
	}
	noPlace := MoveFormatError(&FormatError{Off: -1, Msg: "x"}, 512, "")
	if !errors.As(noPlace, &got) || got.Off != -1 {
		t.Errorf("an error without a place moved: %+v", got)
	}
	plain := errors.New("plain")
	if MoveFormatError(plain, 512, "") != plain {
		t.Error("an error without a FormatError changed")
	}
}
