package ar

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// cFile is a C source compiled by a test: its file name and text.
type cFile struct{ name, src string }

// compile writes each source into dir and compiles it with cc -c, giving
// objects named like the source with .o.
func compile(t *testing.T, dir string, srcs []cFile, flags ...string) []string {
	t.Helper()
	tooltest.Need(t, "cc")
	var objs []string
	for _, s := range srcs {
		c := filepath.Join(dir, s.name+".c")
		if err := os.WriteFile(c, []byte(s.src), 0o644); err != nil {
			t.Fatal(err)
		}
		o := s.name + ".o"
		objs = append(objs, o)
	}
	// One cc call per source keeps the object names under our control.
	for i, s := range srcs {
		args := append([]string{"-c", "-o", objs[i], s.name + ".c"}, flags...)
		run(t, dir, "cc", args...)
	}
	return objs
}

// run runs a command in dir and fails the test when it fails.
func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// fileEntries makes Plan entries for files in dir, with the header GNU
// ar D writes: date 0, uid 0, gid 0, mode 644.
func fileEntries(t *testing.T, dir string, names []string, thin bool) []Entry {
	t.Helper()
	var es []Entry
	for _, n := range names {
		f, err := os.Open(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		st, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(n)
		if thin {
			name = filepath.ToSlash(n)
		}
		es = append(es, Entry{Header: Header{Name: name, Mode: 0o644, Size: st.Size()}, Data: f})
	}
	return es
}

func planBytes(t testing.TB, es []Entry, opts *Options) []byte {
	t.Helper()
	p, err := NewPlan(es, opts)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := p.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if int64(buf.Len()) != p.Size() {
		t.Fatalf("WriteTo wrote %d bytes, Size says %d", buf.Len(), p.Size())
	}
	return buf.Bytes()
}

// sameBytes fails with a description of the first difference.
func sameBytes(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	t.Errorf("%s: %d bytes, want %d; first difference at byte %#x: %s", what, len(got), len(want), i, structureAt(want, int64(i)))
	lo := max(0, i-16)
	t.Logf("got  %q", got[lo:min(len(got), i+32)])
	t.Logf("want %q", want[lo:min(len(want), i+32)])
}

// structureAt names the structure of a (reference) archive at byte off.
func structureAt(a []byte, off int64) string {
	r, err := NewReader(bytes.NewReader(a), int64(len(a)))
	if err != nil {
		return fmt.Sprintf("(reference unreadable: %v)", err)
	}
	if off < 8 {
		return "magic"
	}
	ms := r.Members()
	for i := len(ms) - 1; i >= 0; i-- {
		m := ms[i]
		if off >= m.HeaderOffset {
			if off < m.HeaderOffset+headerLen {
				return fmt.Sprintf("header of member %d %q, field at +%d", i, m.Name, off-m.HeaderOffset)
			}
			return fmt.Sprintf("data of member %d %q at +%#x", i, m.Name, off-m.DataOffset)
		}
	}
	return "symbol index or long-name table"
}
