package describe

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
		f    Kind
		want error
	}{
		{Kind{Name: "x", Match: match, Open: open}, nil},
		{Kind{Match: match, Open: open}, ErrNoName},
		{Kind{Name: "x", Open: open}, ErrNoMatch},
		{Kind{Name: "x", Match: match}, ErrNoOpen},
	} {
		err := tc.f.Check()
		if (tc.want == nil) != (err == nil) || !errors.Is(err, tc.want) {
			t.Errorf("Check(%q) = %v, want %v", tc.f.Name, err, tc.want)
		}
	}
	f := Kind{Name: "kv", Open: open}
	if err := f.Check(); err == nil || err.Error() != `describe: format has no Match (format "kv")` {
		t.Errorf("Check = %v", err)
	}
}

// testFS is a format's own FS type for TestAdapters.
type testFS struct{ fs.FS }

// testEntry is what a testFS file's FileInfo.Sys gives.
type testEntry struct{ id string }

// testSys is an fs.FileInfo whose Sys is sys.
type testSys struct {
	fs.FileInfo
	sys any
}

func (i testSys) Sys() any { return i.sys }

// TestAdapters checks that OpenAs, SummaryOf and ColumnOf turn a format's
// typed functions into a Kind's: the FS is passed through and a failed
// open is a nil fs.FS; another FS type, another Sys type or a nil pointer
// is "".
func TestAdapters(t *testing.T) {
	t.Parallel()
	errOpen := errors.New("bad magic")
	open := OpenAs(func(r io.ReaderAt, size int64) (*testFS, error) {
		if size == 0 {
			return nil, errOpen
		}
		return &testFS{}, nil
	})
	if fsys, err := open(nil, 1); err != nil || fsys == nil {
		t.Errorf("open: %v, %v", fsys, err)
	}
	if fsys, err := open(nil, 0); fsys != nil || err != errOpen {
		t.Errorf("failed open: %#v, %v; want a nil fs.FS and the error", fsys, err)
	}

	summary := SummaryOf(func(f *testFS) string { return "test" })
	if got := summary(&testFS{}); got != "test" {
		t.Errorf("summary = %q", got)
	}
	if got := summary(fstestFS{}); got != "" {
		t.Errorf("summary of another FS = %q", got)
	}

	column := ColumnOf(func(e *testEntry) string { return e.id })
	for _, tc := range []struct {
		sys  any
		want string
	}{{&testEntry{"7"}, "7"}, {(*testEntry)(nil), ""}, {nil, ""}, {testEntry{"7"}, ""}, {"7", ""}} {
		if got := column(testSys{sys: tc.sys}); got != tc.want {
			t.Errorf("column(Sys %#v) = %q, want %q", tc.sys, got, tc.want)
		}
	}
}

// fstestFS is an fs.FS of another format.
type fstestFS struct{ fs.FS }
