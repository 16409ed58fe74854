package cd9660

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// xorrisoBytes returns the bytes of an xorriso image of files made with
// flags ("-R", "-J").
func xorrisoBytes(t *testing.T, files []srcFile, flags ...string) []byte {
	t.Helper()
	xorriso := tooltest.Need(t, "xorriso")
	src := makeSource(t, files)
	img := filepath.Join(t.TempDir(), "x.iso")
	args := append(append([]string{"-as", "mkisofs", "-quiet"}, flags...), "-o", img, src)
	if out, err := exec.Command(xorriso, args...).CombinedOutput(); err != nil {
		t.Fatalf("xorriso: %v\n%s", err, out)
	}
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func openBytes(t *testing.T, b []byte) *FS {
	t.Helper()
	f, err := NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func mustEntry(t *testing.T, f *FS, name string) *Entry {
	t.Helper()
	e, err := f.Entry(name)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestMultiExtent joins the records of a multi-extent file: an image whose
// records of a1 (2048 bytes) and a2 are made one file by giving a2 the
// file identifier of a1 and a1 the Multi-Extent flag.
func TestMultiExtent(t *testing.T) {
	t.Parallel()
	b := xorrisoBytes(t, []srcFile{{name: "a1", size: 2048, mode: 0o644}, {name: "a2", size: 100, mode: 0o644}}, "-R")
	f := openBytes(t, b)
	e1, e2 := mustEntry(t, f, "a1"), mustEntry(t, f, "a2")
	if e1.Identifier != "A1.;1" || e2.Identifier != "A2.;1" {
		t.Fatalf("identifiers %q %q", e1.Identifier, e2.Identifier)
	}
	b[e1.Offset+25] |= flagMultiExtent
	b[e2.Offset+34] = '1'
	want := append(pattern("a1", 2048), pattern("a2", 100)...)
	for _, ns := range []Namespace{RockRidge, ISO9660} {
		v, err := openBytes(t, b).View(ns)
		if err != nil {
			t.Fatal(err)
		}
		name := map[Namespace]string{RockRidge: "a1", ISO9660: "A1"}[ns]
		got, err := v.ReadFile(name)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%v: ReadFile(%s) = %d bytes, %v; want the 2148 bytes of both extents", ns, name, len(got), err)
		}
		if e := mustEntry(t, v, name); e.Records != 2 || e.Size != 2148 {
			t.Errorf("%v: %s has %d records, %d bytes; want 2, 2148", ns, name, e.Records, e.Size)
		}
		if _, err := v.Stat(strings.Replace(name, "1", "2", 1)); err == nil {
			t.Errorf("%v: the second extent's record is listed as a file", ns)
		}
	}
}

// TestInterleaved reads an interleaved extent: file units of one block
// separated by gaps of one block.
func TestInterleaved(t *testing.T) {
	t.Parallel()
	var img []byte
	var want []byte
	for i := range 3 {
		unit := bytes.Repeat([]byte{byte('A' + i)}, SectorSize)
		img = append(img, unit...)
		img = append(img, make([]byte, SectorSize)...)
		want = append(want, unit...)
	}
	want = want[:5000]
	f := &FS{r: bytes.NewReader(img), size: int64(len(img)), blockSize: SectorSize}
	x := extent{off: 0, n: 5000, unit: SectorSize, gap: SectorSize}
	got := make([]byte, 5000)
	if n, err := f.readExtent(x, got, 0); n != 5000 || err != nil || !bytes.Equal(got, want) {
		t.Errorf("readExtent = %d, %v; contents equal: %v", n, err, bytes.Equal(got, want))
	}
	part := make([]byte, 100)
	if _, err := f.readExtent(x, part, 2000); err != nil || !bytes.Equal(part, want[2000:2100]) {
		t.Errorf("readExtent across a gap: %v, %q", err, part[40:56])
	}
}

// TestContinuationLoop checks that a CE entry whose continuation area
// points back at itself is an error, not a hang.
func TestContinuationLoop(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("n", 200)
	b := xorrisoBytes(t, []srcFile{{name: long, size: 1, mode: 0o644}}, "-R")
	f := openBytes(t, b)
	e := mustEntry(t, f, long)
	rec, err := f.recordAt(e.Offset)
	if err != nil {
		t.Fatal(err)
	}
	var ce suspEntry
	f.walkSUSP(rec, e.Offset, func(s suspEntry, off int64) error {
		if string(s.signatureWord()) == sigCE {
			ce = s
		}
		return nil
	})
	if ce == nil {
		t.Fatal("no CE entry for a 200-character name")
	}
	loc, _ := get733(ce.blockLocationOfContinuationArea())
	at, _ := get733(ce.offsetToStartOfContinuationArea())
	area := int64(loc)*SectorSize + int64(at)
	loop := make(suspEntry, 28)
	copy(loop, "CE\x1c\x01")
	put733(loop.blockLocationOfContinuationArea(), loc)
	put733(loop.offsetToStartOfContinuationArea(), at)
	put733(loop.lengthOfTheContinuationArea(), 28)
	copy(b[area:], loop)
	_, err = NewReader(bytes.NewReader(b), int64(len(b)))
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "loop") {
		t.Errorf("Open of a looping continuation area: %v, want an ErrFormat naming the loop", err)
	}
}

// TestSparseRefused checks that a file with an SF entry opens with an
// error wrapping ErrUnsupported.
func TestSparseRefused(t *testing.T) {
	t.Parallel()
	b := xorrisoBytes(t, []srcFile{{name: "s", size: 10, mode: 0o644}}, "-R")
	f := openBytes(t, b)
	e := mustEntry(t, f, "s")
	rec, _ := f.recordAt(e.Offset)
	patched := false
	f.walkSUSP(rec, e.Offset, func(s suspEntry, off int64) error {
		if string(s.signatureWord()) == sigTF && len(s) >= 21 && !patched {
			copy(b[off:], sigSF)
			patched = true
		}
		return nil
	})
	if !patched {
		t.Fatal("no TF entry to turn into an SF entry")
	}
	_, err := openBytes(t, b).Open("s")
	if !errors.Is(err, ErrUnsupported) {
		t.Errorf("Open of a sparse file: %v, want ErrUnsupported", err)
	}
}

// genisoimageBytes returns the bytes of a genisoimage image of files made
// with flags: without -R, it writes no Rock Ridge entries (xorriso always
// does).
func genisoimageBytes(t *testing.T, files []srcFile, flags ...string) []byte {
	t.Helper()
	bin := tooltest.Need(t, "genisoimage")
	src := makeSource(t, files)
	img := filepath.Join(t.TempDir(), "g.iso")
	args := append(append([]string{"-quiet"}, flags...), "-o", img, src)
	if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		t.Fatalf("genisoimage: %v\n%s", err, out)
	}
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestJolietPreferred checks that NewReader shows the Joliet tree of an image
// without Rock Ridge, and the ISO 9660 one of an image with neither.
func TestJolietPreferred(t *testing.T) {
	t.Parallel()
	files := []srcFile{{name: "Long Name.text", size: 1, mode: 0o644}}
	for _, c := range []struct {
		flags []string
		ns    Namespace
		name  string
	}{{[]string{"-J"}, Joliet, "Long Name.text"}, {nil, ISO9660, "LONG_NAM.TEX"}} {
		f := openBytes(t, genisoimageBytes(t, files, c.flags...))
		if f.Namespace() != c.ns {
			t.Errorf("%v: namespace %v, want %v", c.flags, f.Namespace(), c.ns)
		}
		if _, err := f.Stat(c.name); err != nil {
			t.Errorf("%v: %v", c.flags, err)
		}
		if _, err := f.View(RockRidge); err == nil {
			t.Errorf("%v: View(RockRidge) of an image without Rock Ridge succeeded", c.flags)
		}
	}
}

// TestLinkComponents checks how SL component records join: separators
// between components unless one continues or is the root, across SL
// entries too, and a ROOT component after the first adding a "/".
func TestLinkComponents(t *testing.T) {
	t.Parallel()
	comp := func(flags byte, s string) []byte { return append([]byte{flags, byte(len(s))}, s...) }
	for _, c := range []struct {
		entries [][]byte
		want    string
	}{
		{[][]byte{comp(compRoot, ""), comp(0, "usr"), comp(0, "bin")}, "/usr/bin"},
		{[][]byte{comp(compParent, ""), comp(compCurrent, ""), comp(0, "a")}, ".././a"},
		{[][]byte{comp(compContinue, "lo"), comp(0, "ng")}, "long"},
		{[][]byte{comp(0, "a")}, "a"},
		{[][]byte{comp(compRoot, "")}, "/"},
		{[][]byte{comp(compCurrent, ""), comp(compRoot, ""), comp(compRoot, ""), comp(0, "file")}, ".///file"},
		{[][]byte{comp(compRoot, ""), comp(0, "tmp"), comp(compRoot, ""), comp(compParent, "")}, "/tmp//.."},
		{[][]byte{comp(compRoot, ""), comp(compRoot, ""), comp(0, "x")}, "//x"},
		{[][]byte{comp(0, "a"), comp(0, ""), comp(0, "b")}, "a//b"},
		{[][]byte{comp(0, "a"), comp(0, "")}, "a/"},
	} {
		var l linkBuilder
		for _, e := range c.entries {
			l.addComponents(e) // one SL entry per component record
		}
		if got := l.b.String(); got != c.want {
			t.Errorf("link %q, want %q", got, c.want)
		}
	}
}
