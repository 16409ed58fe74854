package cpio

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestExtractStaysInside checks that Extract writes files, folders and
// links under its folder, and refuses an entry that would write outside
// it, through ".." or through a symbolic link an earlier entry made,
// leaving the outside untouched.
func TestExtractStaysInside(t *testing.T) {
	t.Parallel()
	// An entry is a header and its data: a file's bytes or a link's
	// target.
	type entry struct {
		h    Header
		data string
	}
	archive := func(t *testing.T, es ...entry) *Reader {
		t.Helper()
		var buf bytes.Buffer
		w := NewWriter(&buf, nil)
		for _, e := range es {
			e.h.Size = int64(len(e.data))
			if err := w.WriteHeader(&e.h); err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write([]byte(e.data)); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		rd, err := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatal(err)
		}
		return rd
	}
	outside := t.TempDir()
	dir := t.TempDir()
	ok := archive(t,
		entry{Header{Name: "d", Mode: ModeDir | 0o755, Nlink: 2}, ""},
		entry{Header{Name: "d/f", Mode: ModeRegular | 0o644, Nlink: 1}, "data"},
		entry{Header{Name: "l", Mode: ModeSymlink | 0o777, Nlink: 1}, "d/f"},
	)
	if err := ok.Extract(dir, nil); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "l")); err != nil || string(b) != "data" {
		t.Errorf("l reads %q, %v", b, err)
	}
	for _, c := range []struct {
		name string
		es   []entry
	}{
		{"dot-dot", []entry{{Header{Name: "../escape", Mode: ModeRegular | 0o644, Nlink: 1}, "data"}}},
		{"through a link", []entry{
			{Header{Name: "out", Mode: ModeSymlink | 0o777, Nlink: 1}, outside},
			{Header{Name: "out/escape", Mode: ModeRegular | 0o644, Nlink: 1}, "data"},
		}},
	} {
		err := archive(t, c.es...).Extract(t.TempDir(), nil)
		if !errors.Is(err, ErrOutside) {
			t.Errorf("%s: %v, want ErrOutside", c.name, err)
		}
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("outside the folder: %v", ents)
	}
}
