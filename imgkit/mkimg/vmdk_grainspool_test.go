package mkimg

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/vdisk"
	"github.com/fixturegen/fixturegen/imgkit/vdisk/vmdk"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
)

// grainSpoolInputs writes the partitions' data of the grain spool tests
// in dir: t.txt, 3 MiB and a bit of text, and r.bin, random bytes (whole
// grains of them are stored, not compressed), then zeros for whole
// grains, then text; and returns r.bin's bytes.
func grainSpoolInputs(t *testing.T, dir string) []byte {
	t.Helper()
	var text []byte
	for i := 0; len(text) < 3<<20+12345; i++ {
		text = fmt.Appendf(text, "line %d of the text\n", i)
	}
	r := make([]byte, 200<<10)
	rand.NewChaCha8([32]byte{'g', 'r', 'a', 'i', 'n'}).Read(r)
	r = append(r, make([]byte, 300<<10)...)
	r = append(r, text[:100<<10+7]...)
	for name, b := range map[string][]byte{"t.txt": text, "r.bin": r} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// TestVMDKSGrainSpoolBytes checks that a vmdks disk whose commands'
// output is spooled as grains (WriteFile) has the bytes of one whose
// output is spooled raw (Build, its raw disk in memory): partitions that
// start and end inside a grain, of zero, stored and compressed grains,
// one that crosses a grain table's boundary among grains of the raw
// disk, tiny and empty ones, in several schemes, sector sizes and -y. It
// also checks that WriteFile's layout does spool the commands' output as
// grains, and smaller than it is.
func TestVMDKSGrainSpoolBytes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("8 layouts written twice; the run without -short compares them all (CI's race run is -short)")
	}
	dir := t.TempDir()
	grainSpoolInputs(t, dir)
	cases := [][]string{
		{"-s", "gpt", "-p", "freebsd:-cat t.txt"},
		{"-s", "gpt", "-p", "efi::32m", "-p", "freebsd:-cat r.bin", "-p", "freebsd:=t.txt", "-p", "freebsd:-cat t.txt"},
		{"-S", "4096", "-s", "gpt", "-p", "freebsd:-cat r.bin", "-p", "freebsd:-printf abc", "-p", "freebsd:-true"},
		{"-s", "mbr", "-H", "16", "-T", "63", "-p", "freebsd:-cat t.txt", "-p", "freebsd:-head -c 65536 t.txt"},
		{"-y", "-s", "gpt", "-p", "freebsd:-cat r.bin", "-p", "freebsd:-cat t.txt"},
		{"-s", "bsd", "-p", "freebsd-ufs:-cat t.txt", "-p", "freebsd-swap:-head -c 100000 r.bin"},
	}
	// A command at an absolute offset: spooled as grains in a GPT, raw
	// in a BSD label, whose metadata may go over its zeros.
	absolute := func(o *Options) {
		if len(o.Partitions) == 2 {
			o.Partitions[1].Offset, o.Partitions[1].Absolute = 5<<20+3*512, true
		}
	}
	cases = append(cases, []string{"-s", "gpt", "-p", "freebsd:-cat t.txt", "-p", "freebsd:-cat r.bin", "-c", "8m"},
		[]string{"-s", "bsd", "-p", "freebsd-ufs:-cat t.txt", "-p", "freebsd-ufs:-cat r.bin", "-c", "8m"})
	for i, args := range cases {
		args = append(args, "-f", "vmdks")
		o := parseIn(t, dir, args)
		o.Dir = dir
		absolute(o)
		target := filepath.Join(t.TempDir(), "disk.vmdk")
		if err := WriteFile(target, o); err != nil {
			t.Fatalf("case %d, %q: %v", i, args, err)
		}
		got, err := os.ReadFile(target)
		if err != nil {
			t.Fatal(err)
		}
		o = parseIn(t, dir, args)
		o.Dir = dir
		absolute(o)
		want, err := Build(o)
		if err != nil {
			t.Fatalf("case %d, %q: Build: %v", i, args, err)
		}
		if !bytes.Equal(got, want) {
			at := 0
			for at < min(len(got), len(want)) && got[at] == want[at] {
				at++
			}
			t.Errorf("case %d, %q: WriteFile's %d bytes differ from Build's %d at byte %d", i, args, len(got), len(want), at)
		}
	}

	for _, c := range []struct {
		args []string
		bsd  bool
	}{{cases[1], false}, {cases[len(cases)-2], false}, {cases[len(cases)-1], true}} {
		o := parseIn(t, dir, append(c.args, "-f", "vmdks"))
		o.Dir = dir
		absolute(o)
		l, err := planIn(o, spoolPlace{dir: t.TempDir()}, false)
		if err != nil {
			t.Fatal(err)
		}
		defer l.close()
		for _, p := range l.parts {
			switch want := p.Command != "" && !(c.bsd && p.Absolute); {
			case want != (p.stream != nil):
				t.Errorf("%q: partition %d (command %q, absolute %v): grain spool %v", c.args, p.index+1, p.Command, p.Absolute, p.stream != nil)
			case p.Command == "cat t.txt" && spoolSize(t, p.streamFile) >= int64(p.bytes)/2:
				t.Errorf("%q: partition %d: %d bytes of text spooled in %d bytes of grains", c.args, p.index+1, p.bytes, spoolSize(t, p.streamFile))
			}
		}
	}
}

// TestGrainSpoolSource spools streams as grains at several places of the
// disk and copies them back (grainSpoolSource.copyTo, which inflates the
// grains): the bytes and the content digest must be the stream's, and
// the digest the one taken as the stream was spooled; a second copy is
// refused.
func TestGrainSpoolSource(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := grainSpoolInputs(t, dir)
	text, err := os.ReadFile(filepath.Join(dir, "t.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		start uint64 // in sectors of 512 bytes
		data  []byte
	}{
		{41, r}, {128, r}, {0, text[:1<<20]}, {41, text[:1000]}, {127, text[:1000]}, {128, nil}, {100, append(slices.Clone(r), text...)},
	} {
		what := fmt.Sprintf("%d bytes at sector %d", len(c.data), c.start)
		cs := &contents{place: spoolPlace{dir: dir}, stream: &streaming{f: vmdk.StreamOptimized{}, p: &vdisk.Params{SectorSize: 512}, secsz: 512, hash: true}}
		p := &placed{Partition: Partition{Command: "test"}, start: c.start}
		if err := cs.spool(p, bytes.NewReader(c.data)); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if p.stream == nil || p.bytes != uint64(len(c.data)) {
			t.Fatalf("%s: spooled %d bytes, as grains %v", what, p.bytes, p.stream != nil)
		}
		off := int64(c.start * 512)
		d := newContentDigest()
		im, err := imgfmt.WriteImage(imgfmt.ToMemory(), off+int64(len(c.data)), nil, func(im *bcache.Image) error {
			return p.content().copyTo(im, off, int64(len(c.data)), d)
		})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if !bytes.Equal(im.Bytes()[off:], c.data) {
			t.Errorf("%s: copied back other bytes", what)
		}
		want := newContentDigest()
		want.Write(c.data)
		if sum := want.Sum(nil); !bytes.Equal(d.Sum(nil), sum) || !bytes.Equal(p.streamSum.Sum(nil), sum) {
			t.Errorf("%s: digests %x (copied) and %x (spooled), want %x", what, d.Sum(nil), p.streamSum.Sum(nil), sum)
		}
		_, err = imgfmt.WriteImage(imgfmt.ToMemory(), off+int64(len(c.data)), nil, func(im *bcache.Image) error {
			return p.content().copyTo(im, off, int64(len(c.data)), nil)
		})
		if !errors.Is(err, ErrSourceChanged) {
			t.Errorf("%s: a second copy gives %v", what, err)
		}
		cs.close()
	}
	if left, _ := os.ReadDir(dir); len(left) != 2 {
		t.Errorf("the spools left %v", left)
	}
}

// spoolSize returns the size of f.
func spoolSize(t *testing.T, f *os.File) int64 {
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
