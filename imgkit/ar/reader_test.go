package ar

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
	"github.com/fixturegen/fixturegen/internal/elfgen"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// sample builds an archive in memory from name/data pairs with a Writer.
func sample(t testing.TB, opts *Options, files ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf, opts)
	for i := 0; i < len(files); i += 2 {
		h := &Header{Name: files[i], Size: int64(len(files[i+1])), Mode: 0o644}
		if err := w.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(w, files[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func obj(syms ...string) string {
	o := elfgen.Object{Is64: true, Text: []byte{0xc3}}
	for _, s := range syms {
		o.Syms = append(o.Syms, elfgen.Sym{Name: s, Bind: elfgen.STB_GLOBAL, Shndx: elfgen.TextSection})
	}
	return string(o.Bytes())
}

func TestReaderFS(t *testing.T) {
	t.Parallel()
	for _, f := range []Format{FormatGNU, FormatBSD} {
		t.Run(f.String(), func(t *testing.T) {
			t.Parallel()
			a := sample(t, &Options{Format: f},
				"one.o", obj("one", "uno"),
				"a_name_longer_than_sixteen_bytes.txt", "long\n",
				"one.o", "second one.o\n",
				"odd", "abc",
				"one.o", "third\n")
			r, err := NewReader(bytes.NewReader(a), int64(len(a)))
			if err != nil {
				t.Fatal(err)
			}
			if err := fstest.TestFS(r, "one.o", "one.o;2", "one.o;3", "odd", "a_name_longer_than_sixteen_bytes.txt"); err != nil {
				t.Fatal(err)
			}
			for name, want := range map[string]string{"one.o;2": "second one.o\n", "odd": "abc", "one.o;3": "third\n"} {
				got, err := fs.ReadFile(r, name)
				if err != nil || string(got) != want {
					t.Errorf("%s: %q, %v; want %q", name, got, err, want)
				}
			}
			syms := r.Symbols()
			if len(syms) != 2 || syms[0].Name != "one" || syms[1].Name != "uno" || syms[0].Member != 0 {
				t.Errorf("symbols %+v", syms)
			}
			if m := r.Members()[0]; len(m.Symbols) != 2 || m.Mode != 0o644 || !m.ModTime.Equal(time.Unix(0, 0)) {
				t.Errorf("member 0 %+v", m)
			}
		})
	}
}

// TestOpenReader checks that OpenReader reads an archive file as NewReader
// reads its bytes, that the ReadCloser is an fs.FS, and that Close closes
// the file.
func TestOpenReader(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := sample(t, nil, "one.o", obj("one"), "a_name_longer_than_sixteen_bytes.txt", "long\n")
	name := filepath.Join(dir, "lib.a")
	if err := os.WriteFile(name, a, 0o644); err != nil {
		t.Fatal(err)
	}
	rc, err := OpenReader(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := fstest.TestFS(rc, "one.o", "a_name_longer_than_sixteen_bytes.txt"); err != nil {
		t.Error(err)
	}
	if got, err := fs.ReadFile(rc, "a_name_longer_than_sixteen_bytes.txt"); err != nil || string(got) != "long\n" {
		t.Errorf("ReadFile: %q, %v", got, err)
	}
	if syms := rc.Symbols(); len(syms) != 1 || syms[0].Name != "one" || syms[0].Member != 0 {
		t.Errorf("symbols %+v", syms)
	}
	if err := rc.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := fs.ReadFile(rc, "one.o"); !errors.Is(err, os.ErrClosed) {
		t.Errorf("ReadFile after Close: %v, want os.ErrClosed", err)
	}

	if _, err := OpenReader(filepath.Join(dir, "missing.a")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	notar := filepath.Join(dir, "notar.a")
	os.WriteFile(notar, []byte("hello, world\n"), 0o644)
	if _, err := OpenReader(notar); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "at byte 0x0") {
		t.Errorf("not an archive: %v", err)
	}
}

// TestRewriteKeepsRawFields checks that a member read from an archive is
// written back with its date, uid, gid and mode bytes as they were, and
// that a change to the Header's fields is written instead of them.
func TestRewriteKeepsRawFields(t *testing.T) {
	t.Parallel()
	a := sample(t, nil, "one.txt", "one\n")
	h := a[8:][:60]
	copy(h[16:48], "00042       01    0     0644    ") // date, uid, gid, mode as an odd writer pads them
	rewrite := func(edit func(*Header)) []byte {
		t.Helper()
		r, err := NewReader(bytes.NewReader(a), int64(len(a)))
		if err != nil {
			t.Fatal(err)
		}
		m := r.Members()[0]
		if !m.ModTime.Equal(time.Unix(42, 0)) || m.Uid != 1 || m.Gid != 0 || m.Mode != 0o644 {
			t.Fatalf("read %+v", m.Header)
		}
		sr, _ := r.Section(0)
		e := Entry{Header: m.Header, Data: sr}
		edit(&e.Header)
		return planBytes(t, []Entry{e}, nil)
	}
	if got := rewrite(func(*Header) {}); !bytes.Equal(got, a) {
		t.Errorf("unchanged member rewritten as %q, want %q", got[8:68], a[8:68])
	}
	for _, c := range []struct {
		edit func(*Header)
		want string
	}{
		{func(h *Header) { h.ModTime = time.Unix(7, 0) }, "7           1     0     644     "},
		{func(h *Header) { h.Uid = 0 }, "42          0     0     644     "},
		{func(h *Header) { h.Gid = 5 }, "42          1     5     644     "},
		{func(h *Header) { h.Mode = 0o600 }, "42          1     0     600     "},
	} {
		if got := rewrite(c.edit); string(got[8+16:8+48]) != c.want {
			t.Errorf("edited member written with fields %q, want %q", got[8+16:8+48], c.want)
		}
	}
}

// TestWriterMatchesPlan checks that the streaming Writer, spooling to memory
// and to a file, writes what a Plan over the same members writes.
func TestWriterMatchesPlan(t *testing.T) {
	t.Parallel()
	files := []string{"x.o", obj("x1", "x2"), "data.bin", strings.Repeat("d", 3001), "a_long_member_name.o", obj("long")}
	var es []Entry
	for i := 0; i < len(files); i += 2 {
		es = append(es, Entry{Header: Header{Name: files[i], Size: int64(len(files[i+1])), Mode: 0o644}, Data: strings.NewReader(files[i+1])})
	}
	for _, f := range []Format{FormatGNU, FormatBSD} {
		p, err := NewPlan(es, &Options{Format: f})
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		p.WriteTo(&want)
		for i := range es {
			if es[i].Symbols != nil {
				t.Fatalf("NewPlan wrote the symbols of %s into the caller's entries", es[i].Name)
			}
		}
		got := sample(t, &Options{Format: f}, files...)
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%v: Writer and Plan differ", f)
		}
		var spooled bytes.Buffer
		w := NewWriter(&spooled, &Options{Format: f, SpoolMemory: 100})
		for i := 0; i < len(files); i += 2 {
			if err := w.WriteHeader(&Header{Name: files[i], Size: int64(len(files[i+1])), Mode: 0o644}); err != nil {
				t.Fatal(err)
			}
			if _, err := io.WriteString(w, files[i+1]); err != nil {
				t.Fatal(err)
			}
		}
		if w.sp.f == nil {
			t.Errorf("%v: %d bytes with SpoolMemory 100 did not move the spool to a file", f, w.sp.size)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(spooled.Bytes(), want.Bytes()) {
			t.Errorf("%v: Writer spooling to a file differs from Plan", f)
		}
	}
}

// TestWriterSpoolDefault checks the documented default of
// Options.SpoolMemory: zero, and nil Options, mean 32 MiB.
func TestWriterSpoolDefault(t *testing.T) {
	t.Parallel()
	for _, opts := range []*Options{nil, {}, {SpoolMemory: -1}} {
		if got := NewWriter(io.Discard, opts).sp.limit; got != 32<<20 {
			t.Errorf("NewWriter(%+v) spools %d bytes in memory, want 32 MiB", opts, got)
		}
	}
	if got := NewWriter(io.Discard, &Options{SpoolMemory: 4096}).sp.limit; got != 4096 {
		t.Errorf("SpoolMemory 4096: limit %d", got)
	}
}

func TestWriterErrors(t *testing.T) {
	t.Parallel()
	w := NewWriter(io.Discard, nil)
	w.WriteHeader(&Header{Name: "a", Size: 2})
	if _, err := w.Write([]byte("abc")); !errors.Is(err, ErrWriteTooLong) {
		t.Errorf("long write: %v", err)
	}
	if err := w.Close(); !errors.Is(err, ErrWriteTooLong) {
		t.Errorf("sticky error: %v", err)
	}
	w = NewWriter(io.Discard, nil)
	w.WriteHeader(&Header{Name: "a", Size: 2})
	w.Write([]byte("a"))
	if err := w.Close(); !errors.Is(err, ErrShortWrite) {
		t.Errorf("short member: %v", err)
	}
	if _, err := w.Write(nil); !errors.Is(err, ErrShortWrite) {
		t.Errorf("write after a failed Close: %v, want the sticky error", err)
	}
	w = NewWriter(io.Discard, nil)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteHeader(&Header{Name: "a"}); !errors.Is(err, ErrWriteAfterClose) {
		t.Errorf("WriteHeader after Close: %v", err)
	}
	if _, err := w.Write([]byte("a")); !errors.Is(err, ErrWriteAfterClose) {
		t.Errorf("Write after Close: %v", err)
	}
	if err := NewWriter(io.Discard, nil).WriteHeader(&Header{Name: ""}); !errors.Is(err, ErrName) {
		t.Errorf("empty name: %v", err)
	}
	if err := NewWriter(io.Discard, nil).WriteHeader(&Header{Name: "a", Size: -1}); !errors.Is(err, ErrHeader) {
		t.Errorf("negative size: %v", err)
	}
}

// TestELFClasses checks the index of crafted objects of both classes and
// byte orders against GNU ar, symbol kind by symbol kind.
func TestELFClasses(t *testing.T) {
	t.Parallel()
	gnu := tooltest.Need(t, "ar")
	dir := t.TempDir()
	syms := []elfgen.Sym{
		{Name: "f.c", Type: elfgen.STT_FILE, Shndx: elfgen.SHN_ABS},
		{Name: ".text", Type: elfgen.STT_SECTION, Shndx: elfgen.TextSection},
		{Name: "local", Shndx: elfgen.TextSection},
		{Name: "global", Bind: elfgen.STB_GLOBAL, Type: elfgen.STT_FUNC, Shndx: elfgen.TextSection},
		{Name: "weak", Bind: elfgen.STB_WEAK, Shndx: elfgen.TextSection},
		{Name: "unique", Bind: elfgen.STB_GNU_UNIQUE, Type: elfgen.STT_OBJECT, Shndx: elfgen.TextSection},
		{Name: "undefined", Bind: elfgen.STB_GLOBAL},
		{Name: "weak_undefined", Bind: elfgen.STB_WEAK},
		{Name: "common", Bind: elfgen.STB_GLOBAL, Type: elfgen.STT_OBJECT, Shndx: elfgen.SHN_COMMON, Value: 8, Size: 8},
		{Name: "absolute", Bind: elfgen.STB_GLOBAL, Shndx: elfgen.SHN_ABS, Value: 0x1234},
	}
	var names []string
	for _, c := range []struct {
		is64, be bool
		machine  uint16
	}{{true, false, 0}, {false, false, 0}, {true, true, 21}, {false, true, 8}, {false, false, 40}, {true, false, 183}} {
		o := elfgen.Object{Is64: c.is64, BigEndian: c.be, Machine: c.machine, Text: []byte{0, 0, 0, 0}, Syms: syms}
		name := fmt.Sprintf("elf%d-%v-%d.o", map[bool]int{false: 32, true: 64}[c.is64], map[bool]string{false: "le", true: "be"}[c.be], c.machine)
		os.WriteFile(filepath.Join(dir, name), o.Bytes(), 0o644)
		names = append(names, name)
	}
	run(t, dir, gnu, append([]string{"rcsD", "ref.a"}, names...)...)
	want, _ := os.ReadFile(filepath.Join(dir, "ref.a"))
	got := planBytes(t, fileEntries(t, dir, names, false), nil)
	sameBytes(t, "crafted ELF classes", got, want)
	r, err := NewReader(bytes.NewReader(got), int64(len(got)))
	if err != nil {
		t.Fatal(err)
	}
	if m := r.Members()[0]; strings.Join(m.Symbols, " ") != "global weak unique common absolute" {
		t.Errorf("index entries %q", m.Symbols)
	}
}

// TestReaderErrors feeds damaged archives and checks for positional
// errors: an *imgfmt.FormatError wrapping the sentinel, with the byte and
// the ar(5) field, whose message ends with the byte.
func TestReaderErrors(t *testing.T) {
	t.Parallel()
	good := sample(t, nil, "x.o", obj("x"), "a_long_member_name.txt", "hi\n")
	longName := int64(bytes.LastIndex(good, []byte("/0 ")))
	for _, c := range []struct {
		name     string
		damage   func([]byte) []byte
		sentinel error
		off      int64 // -2: not checked
		field    string
	}{
		{"magic", func(b []byte) []byte { b[0] = '?'; return b }, ErrFormat, 0, ""},
		{"fmag", func(b []byte) []byte { b[8+58] = 'x'; return b }, ErrHeader, 8, "ar_fmag"},
		{"size", func(b []byte) []byte { copy(b[8+48:], "99999999x "); return b }, ErrHeader, 8 + 48, "ar_size"},
		{"truncated", func(b []byte) []byte { return b[:len(b)-5] }, ErrTruncated, -2, ""},
		{"longname", func(b []byte) []byte { copy(b[longName:], "/999"); return b }, ErrName, longName, "ar_name"},
		{"symcount", func(b []byte) []byte { b[68] = 0x7f; return b }, ErrSymtab, -2, ""},
	} {
		b := c.damage(append([]byte{}, good...))
		_, err := NewReader(bytes.NewReader(b), int64(len(b)))
		var fe *imgfmt.FormatError
		if !errors.Is(err, c.sentinel) || !errors.As(err, &fe) {
			t.Errorf("%s: %v, want an *imgfmt.FormatError wrapping %v", c.name, err, c.sentinel)
			continue
		}
		if fe.Format != "ar" || c.off != -2 && fe.Off != c.off || fe.Field != c.field {
			t.Errorf("%s: Format %q Off %#x Field %q, want ar %#x %q (%v)", c.name, fe.Format, fe.Off, fe.Field, c.off, c.field, err)
		}
		if !strings.HasSuffix(err.Error(), fmt.Sprintf(" at byte %#x", fe.Off)) {
			t.Errorf("%s: error %v does not end with its offset %#x", c.name, err, fe.Off)
		}
	}
}
