package mkimg

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// goldenEnv names a directory of FreeBSD's mkimg golden hexdumps
// (img-GEOM-BLKSZ-SCHEME.FORMAT.hex), overriding the repository's
// references/freebsd-mkimg/tests.
const goldenEnv = "FIXTUREGEN_MKIMG_GOLDEN"

// goldenDir returns the directory holding FreeBSD's golden hexdumps:
// $FIXTUREGEN_MKIMG_GOLDEN, or freebsd-mkimg/tests in the repository's
// references folder. It skips the test (fails it with
// FIXTUREGEN_REQUIRE_TOOLS=1) when there is none, as outside a checkout.
func goldenDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv(goldenEnv); d != "" {
		return d
	}
	if refs := tooltest.ReferencesDir(); refs != "" {
		return filepath.Join(refs, "freebsd-mkimg", "tests")
	}
	tooltest.Missing(t, "no references/freebsd-mkimg/tests above the package; set "+goldenEnv)
	return ""
}

// decodeHexdump turns hexdump -C text back into the bytes it shows:
// lines of an offset and up to 16 bytes, "*" for lines repeating the one
// before up to the next offset, and a last line of the total size; lines
// starting with '#' are comments, as FreeBSD's test Makefile drops them.
func decodeHexdump(text string) ([]byte, error) {
	var out, last []byte
	repeat := false
	for n, line := range strings.Split(text, "\n") {
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0 || strings.HasPrefix(line, "#"):
			continue
		case fields[0] == "*":
			repeat = true
			continue
		}
		off, err := strconv.ParseUint(fields[0], 16, 63)
		if err != nil {
			return nil, fmt.Errorf("line %d: bad offset %q", n+1, fields[0])
		}
		if repeat {
			if len(last) == 0 {
				return nil, fmt.Errorf("line %d: '*' with no line before it", n+1)
			}
			for uint64(len(out)) < off {
				out = append(out, last[:min(len(last), int(off)-len(out))]...)
			}
			repeat = false
		}
		if off != uint64(len(out)) {
			return nil, fmt.Errorf("line %d: offset %#x, want %#x", n+1, off, len(out))
		}
		last = last[:0]
		for _, f := range fields[1:] {
			if strings.HasPrefix(f, "|") {
				break
			}
			b, err := strconv.ParseUint(f, 16, 8)
			if err != nil || len(f) != 2 {
				return nil, fmt.Errorf("line %d: bad byte %q", n+1, f)
			}
			last = append(last, byte(b))
		}
		out = append(out, last...)
	}
	return out, nil
}

// TestDecodeHexdump checks the decoder on a dump with a repeat and a
// short last line.
func TestDecodeHexdump(t *testing.T) {
	t.Parallel()
	want := append(bytes.Repeat([]byte("P\n"), 24), 'x', ' ', '|')
	text := "# $FreeBSD$\n" +
		"00000000  50 0a 50 0a 50 0a 50 0a  50 0a 50 0a 50 0a 50 0a  |P.P.P.P.P.P.P.P.|\n" +
		"*\n" +
		"00000030  78 20 7c                                          |x ||\n" +
		"00000033\n"
	got, err := decodeHexdump(text)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("got %q, %v; want %q", got, err, want)
	}
	for _, bad := range []string{"*\n00000010\n", "00000010  00\n", "0000000g\n", "00000000  0x\n"} {
		if _, err := decodeHexdump(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestFreeBSDGolden replays FreeBSD's mkimg tests for every format the
// package writes (Formats: a container format joins when it registers)
// and every scheme, with selftest.sh's command lines: "P\n" repeated over
// 4 MiB as the first partition, 128 KiB of swap, boot code of "B\n" lines
// (8192 bytes for bsd, 512 for gpt and mbr, none for the others), and for
// ebr and mbr a bsd image made first as the one freebsd partition; each
// disk Build makes must be the golden dump's bytes (the inner bsd image
// is raw whatever the format), and every scheme must have its goldens in
// each format FreeBSD's tests hold (none for gpt, vhdx or vmdks).
func TestFreeBSDGolden(t *testing.T) {
	t.Parallel()
	golden := goldenDir(t)
	var files []string
	for _, f := range Formats() {
		for _, s := range Schemes() {
			m, _ := filepath.Glob(filepath.Join(golden, "img-*-"+s+"."+f+".hex"))
			if len(m) == 0 && s != "gpt" && f != "vhdx" && f != "vmdks" {
				t.Errorf("no golden img-*-%s.%s.hex in %s", s, f, golden)
			}
			files = append(files, m...)
		}
	}
	dir := t.TempDir()
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("partition_data_4M.bin", bytes.Repeat([]byte("P\n"), 2097152))
	write("boot-8192", bytes.Repeat([]byte("B\n"), 4096))
	write("boot-512", bytes.Repeat([]byte("B\n"), 256))
	k := 3
	if testing.Short() {
		k = 9
	}
	sample := tooltest.NewSampler(k)
	defer sample.Log(t)
	for _, g := range files {
		// img-GEOM-BLKSZ-SCHEME.FORMAT.hex: by default every third
		// golden and each with a geometry, block size, scheme or format
		// not compared yet; FIXTUREGEN_LONG=1 compares them all.
		dims := strings.FieldsFunc(filepath.Base(g), func(r rune) bool { return r == '-' || r == '.' })
		if !sample.Keep(dims...) {
			continue
		}
		t.Run(filepath.Base(g), func(t *testing.T) {
			t.Parallel()
			// img-GEOM-BLKSZ-SCHEME.FORMAT.hex, GEOM being SECTORSxHEADS
			name, format, _ := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(g), "img-"), ".hex"), ".")
			parts := strings.Split(name, "-")
			if len(parts) != 3 {
				t.Fatalf("unexpected golden name %s", g)
			}
			nsecs, nheads, _ := strings.Cut(parts[0], "x")
			blksz, scheme := parts[1], parts[2]
			line := func(scheme, format string) string {
				l := fmt.Sprintf("-y -f %s -s %s -P %s -H %s -T %s", format, scheme, blksz, nheads, nsecs)
				switch scheme {
				case "bsd":
					l += " -b boot-8192"
				case "gpt", "mbr":
					l += " -b boot-512"
				}
				return l
			}
			args := line(scheme, format)
			switch scheme {
			case "ebr", "mbr":
				inner := mustBuild(t, parseIn(t, dir, strings.Fields(line("bsd", "raw")+" -p freebsd-ufs:=partition_data_4M.bin -p freebsd-swap::128K")))
				name := filepath.Join(t.TempDir(), "bsd.img")
				if err := os.WriteFile(name, inner, 0o644); err != nil {
					t.Fatal(err)
				}
				args += " -p freebsd:=" + name
			default:
				args += " -p freebsd-ufs:=partition_data_4M.bin -p freebsd-swap::128K"
			}
			text, err := os.ReadFile(g)
			if err != nil {
				t.Fatal(err)
			}
			want, err := decodeHexdump(string(text))
			if err != nil {
				t.Fatalf("%s: %v", g, err)
			}
			o, err := Parse(strings.Fields(args))
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range o.Partitions {
				if p.File != "" && !filepath.IsAbs(p.File) {
					o.Partitions[i].File = filepath.Join(dir, p.File)
				}
			}
			if o.Bootcode != "" {
				o.Bootcode = filepath.Join(dir, o.Bootcode)
			}
			compareDisks(t, mustBuild(t, o), want)
		})
	}
}
