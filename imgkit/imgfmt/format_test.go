package imgfmt

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"testing"
)

// TestSum checks that the hash helpers give one text for the same bytes,
// however they are read, and that a short read is an error.
func TestSum(t *testing.T) {
	t.Parallel()
	data := []byte("hello\n")
	full := sha256.Sum256(data)
	want := "sha256:" + hex.EncodeToString(full[:])[:16]
	if want != "sha256:5891b5b522d5df08" {
		t.Fatalf("test vector: %s", want)
	}
	if got := Sum(data); got != want {
		t.Errorf("Sum = %s, want %s", got, want)
	}
	r := bytes.NewReader(append([]byte("xx"), data...))
	if got, err := SumRange(r, 2, int64(len(data))); got != want || err != nil {
		t.Errorf("SumRange = %s, %v, want %s", got, err, want)
	}
	h := NewHash()
	h.Write(data[:2])
	if err := h.AddRange(r, 4, 4); err != nil {
		t.Fatal(err)
	}
	if got := h.Sum(); got != want {
		t.Errorf("Hash.Sum = %s, want %s", got, want)
	}
	if got := DataValue(6, want); got != "6 bytes, sha256:5891b5b522d5df08" {
		t.Errorf("DataValue = %q", got)
	}
	if _, err := SumRange(r, 4, 10); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("SumRange past the end: %v, want io.ErrUnexpectedEOF", err)
	}
	if got := Sum(nil); got != "sha256:e3b0c44298fc1c14" {
		t.Errorf("Sum(nil) = %s", got)
	}
}

// TestCheck checks that Check asks for a Name, a Match and an Open and
// nothing more.
func TestCheck(t *testing.T) {
	t.Parallel()
	match := func([]byte) bool { return false }
	open := func(io.ReaderAt, int64) (fs.FS, error) { return nil, nil }
	for _, tc := range []struct {
		f    Format
		want error
	}{
		{Format{Name: "x", Match: match, Open: open}, nil},
		{Format{Match: match, Open: open}, ErrNoName},
		{Format{Name: "x", Open: open}, ErrNoMatch},
		{Format{Name: "x", Match: match}, ErrNoOpen},
	} {
		err := tc.f.Check()
		if (tc.want == nil) != (err == nil) || !errors.Is(err, tc.want) {
			t.Errorf("Check(%q) = %v, want %v", tc.f.Name, err, tc.want)
		}
	}
	f := Format{Name: "kv", Open: open}
	if err := f.Check(); err == nil || err.Error() != `imgfmt: format has no Match (format "kv")` {
		t.Errorf("Check = %v", err)
	}
}
