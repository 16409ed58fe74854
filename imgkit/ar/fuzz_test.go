package ar

import (
	"bytes"
	"io"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt/imgfmttest"
)

// FuzzReader checks that no input makes the Reader panic or allocate
// without bound, that the members of what it accepts can be read (those of
// a thin archive from a small file system, whatever sizes their headers
// claim), and that it can be walked as an fs.FS and written back with a
// Plan, and that every error of an archive it refuses is an
// *imgfmt.FormatError with a byte of the archive as its Off. The seed corpus is in testdata/fuzz/FuzzReader
// (archives GNU ar and llvm-ar wrote; its README gives the commands) plus
// the seeds below.
// fuzzMembers holds the member files of FuzzReader's thin archives: the
// seeds' names, one of them non-empty.
var fuzzMembers = fstest.MapFS{
	"x.o":                        {Data: []byte("0123456789")},
	"sub/a_long_member_name.txt": {Data: nil},
}

func FuzzReader(f *testing.F) {
	f.Add(sample(f, nil, "x.o", obj("x"), "a_long_member_name.txt", "hi\n"))
	f.Add(sample(f, &Options{Format: FormatBSD}, "x.o", obj("x", "y"), "odd", "abc"))
	f.Add(sample(f, &Options{Thin: true}, "x.o", "", "sub/a_long_member_name.txt", ""))
	f.Add(planBytes(f, []Entry{{Header: Header{Name: "x.o", Mode: 0o644, Size: 10}, Data: bytes.NewReader(make([]byte, 10))}}, &Options{Thin: true}))
	f.Add([]byte("!<arch>\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := NewReaderFS(bytes.NewReader(b), int64(len(b)), fuzzMembers)
		if err != nil {
			imgfmttest.CheckFormatError(t, err, int64(len(b)), "ar", ErrFormat, ErrHeader, ErrTruncated, ErrName, ErrSymtab)
			return
		}
		defer r.Close()
		fs.WalkDir(r, ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				f, err := r.Open(p)
				if err == nil {
					io.Copy(io.Discard, f)
					f.Close()
				}
			}
			return nil
		})
		var es []Entry
		for i, m := range r.Members() {
			sr, err := r.Section(i)
			if err != nil {
				return
			}
			if n, err := io.Copy(io.Discard, sr); err != nil || n != m.Size {
				t.Fatalf("member %d (%q): read %d of %d bytes: %v", i, m.Name, n, m.Size, err)
			}
			h := m.Header
			es = append(es, Entry{Header: h, Data: sr})
		}
		p, err := NewPlan(es, nil)
		if err != nil {
			return
		}
		p.WriteTo(io.Discard)
	})
}
