package ar

import (
	"bytes"
	"io"
	"io/fs"
	"testing"
)

// FuzzReader checks that no input makes the Reader panic or allocate
// without bound, and that what it accepts can be walked as an fs.FS and
// written back with a Plan. The seed corpus is in testdata/fuzz/FuzzReader
// (archives GNU ar and llvm-ar wrote; its README gives the commands) plus
// the seeds below.
func FuzzReader(f *testing.F) {
	f.Add(sample(f, nil, "x.o", obj("x"), "a_long_member_name.txt", "hi\n"))
	f.Add(sample(f, &Options{Format: FormatBSD}, "x.o", obj("x", "y"), "odd", "abc"))
	f.Add(sample(f, &Options{Thin: true}, "x.o", "", "sub/a_long_member_name.txt", ""))
	f.Add([]byte("!<arch>\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
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
