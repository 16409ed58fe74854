package ar_test

import (
	"bytes"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/ar"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestOpenFileShape checks that an open member of the reader has the
// shape of every format's open file: a bad whence is fs.ErrInvalid, and
// Read, Seek and Close after Close are fs.ErrClosed.
func TestOpenFileShape(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := ar.NewWriter(&buf, nil)
	body := []byte("hello\n")
	if err := w.WriteHeader(&ar.Header{Name: "f.txt", Mode: 0o644, Size: int64(len(body))}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(body); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := ar.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	tooltest.CheckOpenFile(t, r, "f.txt")
}
