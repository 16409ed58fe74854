package ar

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/elfgen"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

var updateExample = flag.Bool("update-example", false, "rewrite testdata/libcalc.a from its members")

// exampleMembers are the members of testdata/libcalc.a, the archive the
// package examples read: two x86-64 objects crafted with elfgen and a text
// file.
func exampleMembers() []struct {
	name string
	data []byte
} {
	add := elfgen.Object{Is64: true, Text: []byte{0x8d, 0x04, 0x37, 0xc3}, Syms: []elfgen.Sym{ // lea eax,[rdi+rsi]; ret
		{Name: "add.c", Type: elfgen.STT_FILE, Shndx: elfgen.SHN_ABS},
		{Name: "add", Bind: elfgen.STB_GLOBAL, Type: elfgen.STT_FUNC, Shndx: elfgen.TextSection, Size: 4},
	}}
	mul := elfgen.Object{Is64: true, Text: []byte{0x89, 0xf8, 0x0f, 0xaf, 0xc6, 0xc3}, Syms: []elfgen.Sym{ // mov eax,edi; imul eax,esi; ret
		{Name: "mul.c", Type: elfgen.STT_FILE, Shndx: elfgen.SHN_ABS},
		{Name: "mul", Bind: elfgen.STB_GLOBAL, Type: elfgen.STT_FUNC, Shndx: elfgen.TextSection, Size: 6},
		{Name: "mul_fast", Bind: elfgen.STB_WEAK, Type: elfgen.STT_FUNC, Shndx: elfgen.TextSection, Size: 6},
	}}
	return []struct {
		name string
		data []byte
	}{
		{"README", []byte("libcalc: add and mul, for the examples of package ar.\n")},
		{"add.o", add.Bytes()},
		{"mul.o", mul.Bytes()},
	}
}

// TestExampleArchive checks that testdata/libcalc.a is what a Plan and GNU
// "ar rcsD" write from exampleMembers, and with -update-example writes it.
func TestExampleArchive(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var es []Entry
	var names []string
	for _, m := range exampleMembers() {
		if err := os.WriteFile(filepath.Join(dir, m.name), m.data, 0o644); err != nil {
			t.Fatal(err)
		}
		es = append(es, Entry{Header: Header{Name: m.name, Mode: 0o644, Size: int64(len(m.data))}, Data: bytes.NewReader(m.data)})
		names = append(names, m.name)
	}
	got := planBytes(t, es, nil)
	const path = "testdata/libcalc.a"
	if *updateExample {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale; run go test ./imgkit/ar -run TestExampleArchive -update-example", path)
	}
	gnu := tooltest.Need(t, "ar")
	run(t, dir, gnu, append([]string{"rcsD", "ref.a"}, names...)...)
	ref, err := os.ReadFile(filepath.Join(dir, "ref.a"))
	if err != nil {
		t.Fatal(err)
	}
	sameBytes(t, "GNU ar rcsD "+strings.Join(names, " "), want, ref)
}
