package cli

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/internal/benchtree"
)

// BenchmarkCatalogNoop measures a no-op build of a catalogue of 100 FAT
// fixtures over the 5,000 input files of internal/benchtree's medium tree
// (about 200 MiB; 50 files per fixture, hard-linked from bench/.trees/medium
// when fsbench has generated it, else generated here) against a full
// build of it. It reports:
//
//	full-ms            the best of three full builds (-force)
//	noop-ms            a no-op build (every fixture up to date)
//	noop/full-%        the ratio, the goal being under 2%
//	syscalls/fixture   system calls the up-to-date checks make per fixture,
//	                   counted by build: a stat per input the command
//	                   line names (here the input folder and -T's "0",
//	                   which makefs would read as a file if one existed), and
//	                   per input folder an open, getdents64 until it
//	                   returns 0, an fstatat per entry and a close, and an
//	                   lstat of the output (here 2 + 2 + 50 + 1); planning
//	                   the command line (makefs's parser stats its
//	                   sources and -T) is not counted
//
// Run it with go test -run '^$' -bench CatalogNoop ./internal/cli.
func BenchmarkCatalogNoop(b *testing.B) {
	const fixtures, perFixture = 100, 50
	src := filepath.Join("..", "..", "bench", ".trees", "medium")
	if _, err := os.Stat(src + ".stamp"); err != nil {
		src = filepath.Join(b.TempDir(), "medium")
		if err := benchtree.Generate(src, "medium"); err != nil {
			b.Fatal(err)
		}
	}
	var files []string
	filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	if len(files) != fixtures*perFixture {
		b.Fatalf("%s: %d files, want %d", src, len(files), fixtures*perFixture)
	}
	root := b.TempDir()
	fx := filepath.Join(root, "fixtures")
	var m strings.Builder
	for i := 0; i < fixtures; i++ {
		dir := filepath.Join(fx, "in", fmt.Sprintf("d%03d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for j, f := range files[i*perFixture : (i+1)*perFixture] {
			dst := filepath.Join(dir, fmt.Sprintf("%02d %s", j, filepath.Base(f)))
			if err := os.Link(f, dst); err != nil {
				data, err := os.ReadFile(f)
				if err != nil {
					b.Fatal(err)
				}
				if err := os.WriteFile(dst, data, 0o644); err != nil {
					b.Fatal(err)
				}
			}
		}
		fmt.Fprintf(&m, "f%03d.img: makefs -t msdos -T 0 f%03d.img in/d%03d\n", i, i, i)
	}
	os.WriteFile(filepath.Join(fx, manifestName), []byte(m.String()), 0o644)
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module m\n"), 0o644)
	build := func(args ...string) {
		var stderr bytes.Buffer
		e := &env{Stdout: &bytes.Buffer{}, Stderr: &stderr, Dir: root, Getenv: func(string) string { return "" }}
		if code := runMain(e, append([]string{"build", "-q"}, args...)); code != 0 {
			b.Fatalf("build %q: exit %d: %s", args, code, stderr.String())
		}
	}
	build("-update")
	full := time.Duration(1 << 62)
	for i := 0; i < 3; i++ {
		start := time.Now()
		build("-force")
		full = min(full, time.Since(start))
	}
	build() // settle the state file
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		build()
	}
	b.StopTimer()
	noop := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(full.Microseconds())/1000, "full-ms")
	b.ReportMetric(float64(noop.Microseconds())/1000, "noop-ms")
	b.ReportMetric(100*float64(noop)/float64(full), "noop/full-%")
	b.ReportMetric(float64(lastCheckCalls.Load())/fixtures, "syscalls/fixture")
}
