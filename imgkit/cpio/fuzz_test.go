package cpio

import (
	"bytes"
	"io"
	"io/fs"
	"testing"
)

// FuzzReader feeds the reader arbitrary bytes: it never panics, and what
// it opens can be walked and read to the end.
func FuzzReader(f *testing.F) {
	for _, o := range []Options{{}, {Format: FormatCRC}, {Format: FormatODC}} {
		f.Add(mustBuildF(f, o))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		rd, err := NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		if _, err := Fields(bytes.NewReader(b), int64(len(b))); err != nil {
			t.Fatalf("Fields fails where NewReader does not: %v", err)
		}
		fs.WalkDir(rd, ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if f, err := rd.Open(p); err == nil {
					io.Copy(io.Discard, f.(io.Reader))
					f.Close()
				}
			}
			return nil
		})
	})
}

// mustBuildF builds a small archive with a link set, a symbolic link and
// a folder, for the seed corpus.
func mustBuildF(f *testing.F, o Options) []byte {
	var buf bytes.Buffer
	w := NewWriter(&buf, &o)
	for _, h := range []Header{
		{Name: ".", Mode: ModeDir | 0o755, Nlink: 3},
		{Name: "d", Mode: ModeDir | 0o700, Nlink: 2, Ino: 1},
		{Name: "d/a", Mode: ModeRegular | 0o644, Nlink: 2, Ino: 2},
		{Name: "b", Mode: ModeRegular | 0o644, Nlink: 2, Ino: 2, Size: 5},
		{Name: "s", Mode: ModeSymlink | 0o777, Nlink: 1, Ino: 3, Size: 3},
	} {
		if err := w.WriteHeader(&h); err != nil {
			f.Fatal(err)
		}
		switch h.Name {
		case "b":
			w.Write([]byte("hello"))
		case "s":
			w.Write([]byte("d/a"))
		}
	}
	if err := w.Close(); err != nil {
		f.Fatal(err)
	}
	return buf.Bytes()
}
