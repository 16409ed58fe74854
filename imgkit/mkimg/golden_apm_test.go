package mkimg

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// apmGoldenEnv names a directory of FreeBSD's mkimg golden hexdumps
// (img-GEOM-BLKSZ-SCHEME.FORMAT.hex), overriding the search for
// shared/tools/freebsd-mkimg/tests beside the repository.
const apmGoldenEnv = "FIXTUREGEN_MKIMG_GOLDEN"

// apmGoldenDir returns the directory holding FreeBSD's golden hexdumps:
// $FIXTUREGEN_MKIMG_GOLDEN, or shared/tools/freebsd-mkimg/tests in the
// nearest directory above the package that has one, as .ci/run finds
// ../shared beside the repository. It skips the test (fails it with
// FIXTUREGEN_REQUIRE_TOOLS=1) when there is none.
func apmGoldenDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv(apmGoldenEnv); d != "" {
		return d
	}
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		d := filepath.Join(dir, "shared", "tools", "freebsd-mkimg", "tests")
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tooltest.Missing(t, "no shared/tools/freebsd-mkimg/tests above the package; set "+apmGoldenEnv)
			return ""
		}
		dir = parent
	}
}

// apmParseHexdump turns hexdump -C output back into the bytes it shows:
// "OFFSET  XX XX ... |ascii|" lines, a "*" line standing for the line
// before it repeated up to the next offset, and a last line holding only
// the total length. Lines starting with "#" are skipped, as FreeBSD's
// test Makefile drops them.
func apmParseHexdump(text []byte) ([]byte, error) {
	var out, last []byte
	repeat := false
	sc := bufio.NewScanner(bytes.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		if line == "*" {
			repeat = true
			continue
		}
		hexPart, _, _ := strings.Cut(line, "|")
		fields := strings.Fields(hexPart)
		off, err := strconv.ParseUint(fields[0], 16, 63)
		if err != nil || off < uint64(len(out)) || off > 1<<32 {
			return nil, fmt.Errorf("line %d: bad offset %q", n, fields[0])
		}
		for repeat && uint64(len(out)) < off && len(last) > 0 {
			out = append(out, last...)
		}
		repeat = false
		if uint64(len(out)) != off {
			return nil, fmt.Errorf("line %d: offset %#x, but the lines before it end at %#x", n, off, len(out))
		}
		last = last[:0]
		for _, f := range fields[1:] {
			b, err := strconv.ParseUint(f, 16, 8)
			if err != nil {
				return nil, fmt.Errorf("line %d: bad byte %q", n, f)
			}
			last = append(last, byte(b))
		}
		out = append(out, last...)
	}
	return out, sc.Err()
}

// TestAPMParseHexdump checks the parser on a dump with a repeat and an odd
// final length.
func TestAPMParseHexdump(t *testing.T) {
	t.Parallel()
	want := append(bytes.Repeat([]byte("P\n"), 24), 'x')
	text := "# $FreeBSD$\n" +
		"00000000  50 0a 50 0a 50 0a 50 0a  50 0a 50 0a 50 0a 50 0a  |P.P.P.P.P.P.P.P.|\n" +
		"*\n" +
		"00000030  78                                                |x|\n" +
		"00000031\n"
	got, err := apmParseHexdump([]byte(text))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("apmParseHexdump = %q, %v; want %q", got, err, want)
	}
}

// TestAPMVTOC8Golden replays FreeBSD's golden raw tests for apm and vtoc8
// (tests/img-GEOM-BLKSZ-{apm,vtoc8}.raw.hex) with selftest.sh's command
// line: -y -s SCHEME -P BLKSZ -H HEADS -T SECTORS, a 4 MiB partition of
// "P\n" and a 128 KiB empty one.
func TestAPMVTOC8Golden(t *testing.T) {
	t.Parallel()
	golden := apmGoldenDir(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "partition_data_4M.bin")
	if err := os.WriteFile(data, bytes.Repeat([]byte("P\n"), 2097152), 0o644); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, scheme := range []string{"apm", "vtoc8"} {
		files, err := filepath.Glob(filepath.Join(golden, "img-*-"+scheme+".raw.hex"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			n++
			name := strings.TrimSuffix(filepath.Base(f), ".raw.hex")
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				var sectors, heads, blksz int
				if _, err := fmt.Sscanf(strings.ReplaceAll(strings.TrimPrefix(name, "img-"), "-", " "), "%dx%d %d", &sectors, &heads, &blksz); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				text, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				want, err := apmParseHexdump(text)
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				args := fmt.Sprintf("-y -s %s -P %d -H %d -T %d -p freebsd-ufs:=%s -p freebsd-swap::128K", scheme, blksz, heads, sectors, data)
				o, err := Parse(strings.Fields(args))
				if err != nil {
					t.Fatal(err)
				}
				compareDisks(t, mustBuild(t, o), want)
			})
		}
	}
	if n != 8 {
		t.Errorf("found %d apm and vtoc8 raw goldens in %s, want 8", n, golden)
	}
}
