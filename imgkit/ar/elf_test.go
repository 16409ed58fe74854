package ar

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/elfgen"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// extendedCount rewrites an ELF64 little-endian object to keep its section
// count in section 0's sh_size (e_shnum 0, the gABI's extended numbering)
// and to claim section headers of shentsize bytes.
func extendedCount(o []byte, shentsize uint16) []byte {
	o = append([]byte{}, o...)
	bo := binary.LittleEndian
	shoff := bo.Uint64(o[40:])
	shnum := bo.Uint16(o[60:])
	bo.PutUint16(o[58:], shentsize)           // e_shentsize
	bo.PutUint16(o[60:], 0)                   // e_shnum
	bo.PutUint64(o[shoff+32:], uint64(shnum)) // section 0 sh_size
	return o
}

// TestELFExtendedSectionCount reads objects whose section count is in
// section 0. With e_shentsize 40, less than an ELF64 section header, the
// reader used to index past the headers it had read and panic (the test
// fails without the fix); such a file is not an object, so it gets no index
// entries, as GNU ar gives it none.
func TestELFExtendedSectionCount(t *testing.T) {
	t.Parallel()
	o := (&elfgen.Object{Is64: true, Text: []byte{0xc3}, Syms: []elfgen.Sym{
		{Name: "f", Bind: elfgen.STB_GLOBAL, Shndx: elfgen.TextSection},
	}}).Bytes()
	cases := []struct {
		name      string
		shentsize uint16
		want      string
		isObject  bool
	}{
		{"shentsize64.o", 64, "f", true},
		{"shentsize40.o", 40, "", false},
	}
	for _, c := range cases {
		b := extendedCount(o, c.shentsize)
		names, isObject := elfSymbols(bytes.NewReader(b), int64(len(b)))
		if got := strings.Join(names, " "); got != c.want || isObject != c.isObject {
			t.Errorf("%s: symbols %q, object %v; want %q, %v", c.name, got, isObject, c.want, c.isObject)
		}
	}
	gnu := tooltest.Need(t, "ar")
	dir := t.TempDir()
	var names []string
	for _, c := range cases {
		if err := os.WriteFile(filepath.Join(dir, c.name), extendedCount(o, c.shentsize), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, c.name)
	}
	run(t, dir, gnu, append([]string{"rcsD", "ref.a"}, names...)...)
	want, err := os.ReadFile(filepath.Join(dir, "ref.a"))
	if err != nil {
		t.Fatal(err)
	}
	sameBytes(t, "extended section count", planBytes(t, fileEntries(t, dir, names, false), nil), want)
}

// FuzzELFSymbols checks that no input makes the ELF symbol reader panic or
// read past the data it was given, and that what it returns is consistent.
// The seed corpus is in testdata/fuzz/FuzzELFSymbols (its README says how it
// was made) plus the crafted objects below.
func FuzzELFSymbols(f *testing.F) {
	sym := []elfgen.Sym{
		{Name: "local", Shndx: elfgen.TextSection},
		{Name: "g", Bind: elfgen.STB_GLOBAL, Shndx: elfgen.TextSection},
		{Name: "c", Bind: elfgen.STB_GLOBAL, Shndx: elfgen.SHN_COMMON},
	}
	for _, is64 := range []bool{false, true} {
		for _, be := range []bool{false, true} {
			f.Add((&elfgen.Object{Is64: is64, BigEndian: be, Text: []byte{0xc3}, Syms: sym}).Bytes())
		}
	}
	o := (&elfgen.Object{Is64: true, Text: []byte{0xc3}, Syms: sym}).Bytes()
	f.Add(extendedCount(o, 64))
	f.Add(extendedCount(o, 40))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := &boundedReader{b: b, t: t}
		names, isObject := elfSymbols(r, int64(len(b)))
		if !isObject && names != nil {
			t.Fatalf("not an object, but symbols %q", names)
		}
		for _, n := range names {
			if strings.IndexByte(n, 0) >= 0 {
				t.Fatalf("symbol %q holds a NUL", n)
			}
		}
	})
}

// boundedReader is a bytes.Reader that fails the test on a read starting
// beyond its data, which the symbol reader promises never to issue.
type boundedReader struct {
	b []byte
	t *testing.T
}

func (r *boundedReader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > int64(len(r.b)) || int64(len(p)) > int64(len(r.b))-off {
		r.t.Fatalf("read of %d bytes at %d beyond %d bytes", len(p), off, len(r.b))
	}
	return bytes.NewReader(r.b).ReadAt(p, off)
}
