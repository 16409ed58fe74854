package ar

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/internal/elfgen"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// The benchmarks run the three cases of issue 4 side by side with GNU ar
// and llvm-ar (executed, as users run them), the fixturegen binary
// (executed likewise), the library in-process with each bcache bulk path,
// and the floor of copying the data once:
//
//	go test ./imgkit/ar -run '^$' -bench . -benchtime 20x
//
// Each sub-benchmark reports ns/op; compare the rows of one case. A row
// whose tool (GNU ar, llvm-ar) is missing is skipped through tooltest.Need:
// go test prints the skip, naming the tool, only with -v, so run with -v or
// with FIXTUREGEN_REQUIRE_TOOLS=1 (a missing peer then fails the run) when
// the comparison matters.

var benchOnce struct {
	sync.Once
	dir  string
	bin  string
	big  string
	many []string
	huge string // a 200 MiB archive
	err  error
}

func benchSetup(b *testing.B) {
	b.Helper()
	benchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "fixturegen-ar-bench-")
		if err != nil {
			benchOnce.err = err
			return
		}
		benchOnce.dir = dir
		// A 16 MiB object: one global symbol over 16 MiB of text.
		text := make([]byte, 16<<20)
		for i := range text {
			text[i] = byte(i * 7)
		}
		o := elfgen.Object{Is64: true, Text: text, Syms: []elfgen.Sym{{Name: "big_func", Bind: elfgen.STB_GLOBAL, Type: elfgen.STT_FUNC, Shndx: elfgen.TextSection}}}
		benchOnce.big = filepath.Join(dir, "big.o")
		os.WriteFile(benchOnce.big, o.Bytes(), 0o644)
		// 500 small objects with distinct symbols.
		for i := 0; i < 500; i++ {
			o := elfgen.Object{Is64: true, Text: make([]byte, 600+i), Syms: []elfgen.Sym{
				{Name: fmt.Sprintf("func_%03d", i), Bind: elfgen.STB_GLOBAL, Type: elfgen.STT_FUNC, Shndx: elfgen.TextSection},
				{Name: fmt.Sprintf("data_%03d", i), Bind: elfgen.STB_GLOBAL, Shndx: elfgen.TextSection},
			}}
			p := filepath.Join(dir, fmt.Sprintf("obj%03d.o", i))
			os.WriteFile(p, o.Bytes(), 0o644)
			benchOnce.many = append(benchOnce.many, filepath.Base(p))
		}
		// A 200 MiB archive: 12 copies of the 16 MiB object under other
		// names, plus the small objects.
		var es []Entry
		for i := 0; i < 12; i++ {
			f, _ := os.Open(benchOnce.big)
			st, _ := f.Stat()
			es = append(es, Entry{Header: Header{Name: fmt.Sprintf("big%02d.o", i), Mode: 0o644, Size: st.Size()}, Data: f})
		}
		for _, m := range benchOnce.many[:100] {
			f, _ := os.Open(filepath.Join(dir, m))
			st, _ := f.Stat()
			es = append(es, Entry{Header: Header{Name: m, Mode: 0o644, Size: st.Size()}, Data: f})
		}
		p, err := NewPlan(es, nil)
		if err != nil {
			benchOnce.err = err
			return
		}
		benchOnce.huge = filepath.Join(dir, "huge.a")
		out, _ := os.Create(benchOnce.huge)
		p.WriteTo(out)
		out.Close()
		for _, e := range es {
			e.Data.(*os.File).Close()
		}
		// The fixturegen binary.
		benchOnce.bin = filepath.Join(dir, "fixturegen")
		cmd := exec.Command("go", "build", "-o", benchOnce.bin, "github.com/fixturegen/fixturegen/cmd/fixturegen")
		if out, err := cmd.CombinedOutput(); err != nil {
			benchOnce.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if benchOnce.err != nil {
		b.Fatal(benchOnce.err)
	}
}

// libArchive builds the archive in-process through bcache, as the CLI does.
func libArchive(b *testing.B, out string, files []string, bulk bcache.Bulk, mode bcache.Mode) {
	var es []Entry
	for _, name := range files {
		f, err := os.Open(filepath.Join(benchOnce.dir, name))
		if err != nil {
			b.Fatal(err)
		}
		st, _ := f.Stat()
		es = append(es, Entry{Header: Header{Name: filepath.Base(name), Mode: 0o644, Size: st.Size()}, Data: f})
	}
	defer func() {
		for _, e := range es {
			e.Data.(*os.File).Close()
		}
	}()
	p, err := NewPlan(es, nil)
	if err != nil {
		b.Fatal(err)
	}
	im, err := bcache.Create(out, p.Size(), &bcache.Options{Bulk: bulk, Mode: mode})
	if err != nil {
		b.Fatal(err)
	}
	defer im.Abort()
	if err := im.Guard(func() error { return p.WriteAtTo(im) }); err != nil {
		b.Fatal(err)
	}
	if err := im.Commit(); err != nil {
		b.Fatal(err)
	}
}

func execIn(b *testing.B, dir, name string, args ...string) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

func benchCreate(b *testing.B, files []string) {
	dir := benchOnce.dir
	out := filepath.Join(dir, "out.a")
	rcsD := append([]string{"rcsD", out}, files...)
	// need names the external tool a row runs; the rows without one run
	// this package's own code.
	tools := []struct {
		name, need string
		fn         func(b *testing.B)
	}{
		{"gnu-ar", "ar", func(b *testing.B) { execIn(b, dir, "ar", rcsD...) }},
		{"llvm-ar", "llvm-ar", func(b *testing.B) { execIn(b, dir, "llvm-ar", rcsD...) }},
		{"fixturegen", "", func(b *testing.B) { execIn(b, dir, benchOnce.bin, append([]string{"ar"}, rcsD...)...) }},
		{"lib-mmap-read", "", func(b *testing.B) { libArchive(b, out, files, bcache.BulkRead, bcache.ModeMmap) }},
		{"lib-mmap-copy_file_range", "", func(b *testing.B) { libArchive(b, out, files, bcache.BulkCopyFileRange, bcache.ModeMmap) }},
		{"lib-copy-pwrite", "", func(b *testing.B) { libArchive(b, out, files, bcache.BulkRead, bcache.ModeCopy) }},
		{"lib-copy-copy_file_range", "", func(b *testing.B) { libArchive(b, out, files, bcache.BulkCopyFileRange, bcache.ModeCopy) }},
	}
	for _, tl := range tools {
		b.Run(tl.name, func(b *testing.B) {
			if tl.need != "" {
				tooltest.Need(b, tl.need)
			}
			for i := 0; i < b.N; i++ {
				os.Remove(out)
				tl.fn(b)
			}
		})
	}
}

// BenchmarkRcsD16MiB is "ar rcsD out.a big.o" for one 16 MiB object, with
// the floor of copying 16 MiB file to file.
func BenchmarkRcsD16MiB(b *testing.B) {
	benchSetup(b)
	benchCreate(b, []string{"big.o"})
	b.Run("floor-copy", func(b *testing.B) {
		out := filepath.Join(benchOnce.dir, "copy.o")
		for i := 0; i < b.N; i++ {
			os.Remove(out)
			src, _ := os.Open(benchOnce.big)
			dst, _ := os.Create(out)
			buf := make([]byte, 1<<20)
			if _, err := io.CopyBuffer(struct{ io.Writer }{dst}, struct{ io.Reader }{src}, buf); err != nil {
				b.Fatal(err)
			}
			src.Close()
			dst.Close()
		}
	})
}

// BenchmarkRcsD500 is "ar rcsD out.a" of 500 small objects.
func BenchmarkRcsD500(b *testing.B) {
	benchSetup(b)
	benchCreate(b, benchOnce.many)
}

// BenchmarkReplace200MiB is "ar r" replacing one member of a 200 MiB
// archive (a copy of the archive is restored before each run, untimed).
func BenchmarkReplace200MiB(b *testing.B) {
	benchSetup(b)
	dir := benchOnce.dir
	work := filepath.Join(dir, "work.a")
	restore := func(b *testing.B) {
		b.StopTimer()
		src, _ := os.Open(benchOnce.huge)
		dst, _ := os.Create(work)
		io.Copy(dst, src)
		src.Close()
		dst.Close()
		b.StartTimer()
	}
	for _, tl := range []struct {
		name, prog string
		args       []string
	}{
		{"gnu-ar", "ar", []string{"rD", work, "obj050.o"}},
		{"llvm-ar", "llvm-ar", []string{"rD", work, "obj050.o"}},
		{"fixturegen", benchOnce.bin, []string{"ar", "rD", work, "obj050.o"}},
	} {
		b.Run(tl.name, func(b *testing.B) {
			if tl.prog != benchOnce.bin {
				tooltest.Need(b, tl.prog)
			}
			for i := 0; i < b.N; i++ {
				restore(b)
				execIn(b, dir, tl.prog, tl.args...)
			}
		})
	}
}
