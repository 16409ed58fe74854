package mkimg

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/internal/diskio"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// vmdkLines are command lines of every scheme, sector size, -P and
// geometry that TestVMDKFreeBSD runs in both VMDK formats, besides a
// sample of the generated matrix.
var vmdkLines = []string{
	"-s gpt -p efi:=a -p freebsd-ufs:=b",
	"-s gpt -S 4096 -p efi:=a -p freebsd:=b -p freebsd-vinum::7k -p ntfs:=d",
	"-s gpt -P 4096 -p efi:=a -p freebsd-ufs:=b",
	"-s gpt -P 16384 -p efi:=a -p freebsd-ufs::1m -p - -p freebsd-swap:=b",
	"-s gpt -S 4096 -P 65536 -p efi:=b -p mbr:=d",
	"-s gpt -c 40m -p efi:=a",
	"-s mbr -H 16 -T 63 -p freebsd:=a -p efi::3k",
	"-s mbr -S 4096 -a 2 -b boot -p freebsd:=a -p efi:=b -p - -p fat32:=d",
	"-s apm -p freebsd-ufs:=a -p freebsd-swap:=b",
	"-s bsd -H 4 -T 32 -p freebsd-ufs:=a -p freebsd-swap::64k",
	"-s ebr -H 255 -T 63 -p fat32:=a -p freebsd:=b",
	"-s vtoc8 -H 16 -T 63 -p freebsd-ufs:=a -p freebsd-swap:=b",
	"-c 3m",
}

// TestVMDKFreeBSD compares, for vmdkLines and every fourth command line
// of the short generated matrix, the package's vmdk with freebsd-mkimg
// -y's byte for byte, and its vmdks structurally (compareVMDKStreams);
// for every fifth line WriteFile (the raw disk and the spool in temporary
// files) and Write must give Build's bytes. vmdkLines are compared in
// both formats; the matrix's lines in both with FIXTUREGEN_LONG=1, by
// default in one of the two, in turn. With -short it takes every third
// line.
func TestVMDKFreeBSD(t *testing.T) {
	t.Parallel()
	ref := tooltest.Need(t, "freebsd-mkimg")
	dir := t.TempDir()
	inputs(t, dir)
	matrixInputs(t, dir)
	lines := slices.Clone(vmdkLines)
	for i, c := range matrixCases(true) {
		if !c.refused && i%4 == 0 {
			lines = append(lines, c.String())
		}
	}
	for i, line := range lines {
		if !tooltest.ShortSample(i, 3) {
			continue
		}
		formats := []string{"vmdk", "vmdks"}
		if i >= len(vmdkLines) {
			formats = tooltest.Pick(i-len(vmdkLines), formats)
		}
		for _, format := range formats {
			t.Run(format+"-"+strconv.Itoa(i), func(t *testing.T) {
				t.Parallel()
				args := append(strings.Fields(line), "-y", "-f", format)
				var compare func(t *testing.T, got, want []byte) // byte for byte
				if format == "vmdks" {
					compare = compareVMDKStreams
				}
				checkFreeBSDWith(t, ref, dir, args, compare, i%5 == 0)
				if t.Failed() {
					t.Logf("command line: freebsd-mkimg %s", strings.Join(args, " "))
				}
			})
		}
	}
}

// TestVMDKStreamTables checks the grain tables of a stream-optimized
// extent of several tables against freebsd-mkimg's: data in the first and
// last grain of a table, in the first of the next, none in a whole table,
// and in the disk's last grain; two grains of random bytes, which are
// stored, must inflate to them too, and WriteFile (stored grains stored
// again from the raw disk's file) must give Build's bytes.
func TestVMDKStreamTables(t *testing.T) {
	t.Parallel()
	ref := tooltest.Need(t, "freebsd-mkimg")
	dir := t.TempDir()
	const grain = vmdkStreamGrainSize
	part := make([]byte, 1700*grain)
	for _, g := range []int{1, 510, 511, 1535, 1536, 1699} {
		copy(part[g*grain+100:], fmt.Sprintf("grain %d, %s", g, strings.Repeat("x", g)))
	}
	// Incompressible grains, stored: a whole one and one random only
	// after the probe's first 4 KiB.
	rand.NewChaCha8([32]byte{22}).Read(part[300*grain : 301*grain])
	rand.NewChaCha8([32]byte{23}).Read(part[302*grain+4096 : 303*grain])
	if err := os.WriteFile(filepath.Join(dir, "p"), part, 0o644); err != nil {
		t.Fatal(err)
	}
	args := strings.Fields("-y -f vmdks -s mbr -p freebsd:=p")
	got := checkFreeBSDWith(t, ref, dir, args, compareVMDKStreams, false)
	name := filepath.Join(t.TempDir(), "d.vmdk")
	if err := WriteFile(name, parseIn(t, dir, args)); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(name); err != nil || !bytes.Equal(b, got) {
		t.Fatalf("WriteFile's bytes differ from Build's (%v)", err)
	}
	items, _, err := walkVMDKStream(t, got)
	if err != nil {
		t.Fatal(err)
	}
	var gts int
	for _, it := range items {
		if it.kind == "gt" {
			gts++
		}
	}
	if gts != 3 {
		t.Errorf("%d grain tables; want 3 (none for the table without data)", gts)
	}
}

// vmdkItem is one piece of a stream-optimized extent after its first
// grain boundary: a grain (its marker's lba and inflated bytes) or a
// piece of metadata (its marker sector and its sectors), at the sector
// a grain table or the grain directory points to.
type vmdkItem struct {
	kind   string // "grain", "gt", "gd", "footer" or "eos"
	sector uint64
	lba    uint64
	marker []byte
	data   []byte
}

// The sizes of a stream-optimized extent (Virtual Disk Format 1.1) the
// tests walk one with: its sector, the grain of what mkimg writes, and a
// grain marker's lba and size before the compressed bytes.
const (
	vmdkSectorSize      = 512
	vmdkStreamGrainSize = 64 << 10
	vmdkGrainMarkerSize = 12
)

// vmdkMarkerTypes names the types of a metadata marker.
var vmdkMarkerTypes = map[uint32]string{0: "eos", 1: "gt", 2: "gd", 3: "footer"}

// walkVMDKStream returns the items of the stream-optimized extent b from
// its overHead on, and the bytes before it, checking that the padding
// after each grain is zero. The header's fields are where the package's
// reader places them (containerField).
func walkVMDKStream(t *testing.T, b []byte) ([]vmdkItem, []byte, error) {
	t.Helper()
	_, v := containerField(t, bytes.NewReader(b), int64(len(b)), "VMDK SparseExtentHeader", "overHead")
	sec := binary.LittleEndian.Uint64(v)
	if sec*vmdkSectorSize > uint64(len(b)) {
		return nil, nil, errors.New("overHead past the end")
	}
	head := b[:sec*vmdkSectorSize]
	var items []vmdkItem
	for {
		off := sec * vmdkSectorSize
		if off+vmdkSectorSize > uint64(len(b)) {
			return nil, nil, fmt.Errorf("stream ends at sector %d without an end-of-stream marker", sec)
		}
		m := b[off : off+vmdkSectorSize]
		val, size := binary.LittleEndian.Uint64(m[0:8]), binary.LittleEndian.Uint32(m[8:12])
		if size != 0 {
			end := off + vmdkGrainMarkerSize + uint64(size)
			if end > uint64(len(b)) {
				return nil, nil, fmt.Errorf("grain at sector %d past the end", sec)
			}
			zr, err := zlib.NewReader(bytes.NewReader(b[off+vmdkGrainMarkerSize : end]))
			if err != nil {
				return nil, nil, fmt.Errorf("grain at sector %d: %v", sec, err)
			}
			data, err := io.ReadAll(zr)
			if err != nil {
				return nil, nil, fmt.Errorf("grain at sector %d: %v", sec, err)
			}
			padded := (end + vmdkSectorSize - 1) &^ (vmdkSectorSize - 1)
			if !diskio.IsZero(b[end:min(padded, uint64(len(b)))]) {
				return nil, nil, fmt.Errorf("grain at sector %d: padding not zero", sec)
			}
			items = append(items, vmdkItem{kind: "grain", sector: sec, lba: val, data: data})
			sec = padded / vmdkSectorSize
			continue
		}
		kind := vmdkMarkerTypes[binary.LittleEndian.Uint32(m[12:16])]
		if kind == "" {
			return nil, nil, fmt.Errorf("unknown marker at sector %d", sec)
		}
		if kind == "eos" {
			if !diskio.IsZero(m) || off+vmdkSectorSize != uint64(len(b)) {
				return nil, nil, fmt.Errorf("end-of-stream marker at sector %d not zero or not last", sec)
			}
			return append(items, vmdkItem{kind: kind, sector: sec + 1, marker: m}), head, nil
		}
		if val > uint64(len(b))/vmdkSectorSize-sec-1 {
			return nil, nil, fmt.Errorf("%s at sector %d past the end", kind, sec)
		}
		data := b[off+vmdkSectorSize : off+vmdkSectorSize+val*vmdkSectorSize]
		items = append(items, vmdkItem{kind: kind, sector: sec + 1, marker: m, data: data})
		sec += 1 + val
	}
}

// compareVMDKStreams fails the test unless got is want, a stream-optimized
// extent freebsd-mkimg wrote, but for the compressed grains: the same
// header and descriptor, the same items in the same order, every grain
// with the same lba inflating to the same bytes, every marker the same,
// and every sector number in the grain tables, the grain directory and
// the footer pointing at the same item.
func compareVMDKStreams(t *testing.T, got, want []byte) {
	t.Helper()
	gi, ghead, err := walkVMDKStream(t, got)
	if err != nil {
		t.Fatalf("got: %v", err)
	}
	wi, whead, err := walkVMDKStream(t, want)
	if err != nil {
		t.Fatalf("freebsd-mkimg's: %v", err)
	}
	if !bytes.Equal(ghead, whead) {
		compareDisks(t, ghead, whead)
		t.Fatal("header and descriptor differ")
	}
	if len(gi) != len(wi) {
		t.Fatalf("%d items after the header; freebsd-mkimg's %d", len(gi), len(wi))
	}
	// ordinal maps each item's sector to its place in the stream, which
	// the two extents share.
	ordinal := func(items []vmdkItem, data []byte) []int {
		at := map[uint64]int{}
		for i, it := range items {
			at[it.sector] = i
		}
		var out []int
		for i := 0; i+4 <= len(data); i += 4 {
			s := uint64(binary.LittleEndian.Uint32(data[i:]))
			if n, ok := at[s]; ok {
				out = append(out, n)
			} else if s == 0 {
				out = append(out, -1)
			} else {
				out = append(out, -2-int(s)) // no item there
			}
		}
		return out
	}
	for i := range gi {
		g, w := gi[i], wi[i]
		switch {
		case g.kind != w.kind:
			t.Fatalf("item %d is a %s; freebsd-mkimg's a %s", i, g.kind, w.kind)
		case g.kind == "grain" && (g.lba != w.lba || !bytes.Equal(g.data, w.data)):
			t.Fatalf("grain item %d: lba %d, %d bytes; freebsd-mkimg's lba %d, %d bytes, or their bytes differ", i, g.lba, len(g.data), w.lba, len(w.data))
		case g.kind != "grain" && !bytes.Equal(g.marker, w.marker):
			t.Fatalf("%s item %d: marker %x; freebsd-mkimg's %x", g.kind, i, g.marker[:16], w.marker[:16])
		case g.kind == "gt" || g.kind == "gd":
			a, b := ordinal(gi, g.data), ordinal(wi, w.data)
			for k := range max(len(a), len(b)) {
				if k >= len(a) || k >= len(b) || a[k] != b[k] {
					t.Fatalf("%s item %d: %d entries, freebsd-mkimg's %d; they differ first at entry %d (items %v; freebsd-mkimg's %v; -1 none, below -1 a sector of no item)", g.kind, i, len(a), len(b), k, a[k:min(k+4, len(a))], b[k:min(k+4, len(b))])
				}
			}
		case g.kind == "footer":
			// The footer is a header: its gdOffset is where the
			// header's is.
			gd, _ := containerField(t, bytes.NewReader(got), int64(len(got)), "VMDK SparseExtentHeader", "gdOffset")
			gh, wh := g.data[:vmdkSectorSize], w.data[:vmdkSectorSize]
			a, b := ordinal(gi, gh[gd.Offset:gd.Offset+4]), ordinal(wi, wh[gd.Offset:gd.Offset+4])
			gc, wc := slices.Clone(gh), slices.Clone(wh)
			clear(gc[gd.Offset : gd.Offset+gd.Size])
			clear(wc[gd.Offset : gd.Offset+gd.Size])
			if !bytes.Equal(gc, wc) || !slices.Equal(a, b) {
				t.Fatalf("footer %x (directory item %v); freebsd-mkimg's %x (item %v)", gh[:80], a, wh[:80], b)
			}
		}
	}
}

// TestVMDKReproducible checks that without -y the same command line gives
// the same bytes in two runs and two directories, that the CID is the
// documented derived value, and that it changes with the disk.
func TestVMDKReproducible(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"vmdk", "vmdks"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			disk := checkReproducible(t, strings.Fields("-f "+format+" -s gpt -p efi:=a -p freebsd-ufs:=b"))
			o := parseIn(t, t.TempDir(), strings.Fields("-f "+format+" -s gpt -p efi::1m"))
			l, err := plan(o)
			if err != nil {
				t.Fatal(err)
			}
			defer l.close()
			other := mustBuild(t, o)
			cid := func(b []byte) string {
				_, rest, _ := strings.Cut(string(b[512:1024]), "CID=")
				return rest[:8]
			}
			if cid(disk) == "00000000" || cid(disk) == cid(other) {
				t.Errorf("CIDs %s and %s: want derived ones, differing between disks", cid(disk), cid(other))
			}
			// Writing the raw disk sets the seed.
			if _, err := imgfmt.WriteImage(imgfmt.ToMemory(), int64(l.sectors*l.secsz), nil, l.write); err != nil {
				t.Fatal(err)
			}
			g := derivedGUID(l.idSeed, "vmdk", 0)
			if want := fmt.Sprintf("%08x", binary.LittleEndian.Uint32(g[:4])); cid(other) != want {
				t.Errorf("CID %s; the derived rule gives %s", cid(other), want)
			}
		})
	}
}

// TestVMDKQemu checks both formats with qemu-img: check finds no errors,
// info gives the virtual size mkimg chose, and convert -O raw gives the
// package's raw disk of the same command line with that capacity.
func TestVMDKQemu(t *testing.T) {
	t.Parallel()
	qemu := tooltest.Need(t, "qemu-img")
	dir := t.TempDir()
	inputs(t, dir)
	for _, format := range []string{"vmdk", "vmdks"} {
		for _, line := range []string{"-s gpt -p efi:=a -p freebsd-ufs:=b", "-s mbr -S 4096 -p freebsd:=a -p efi:=c", "-s bsd -p freebsd-ufs:=a"} {
			t.Run(format+" "+line, func(t *testing.T) {
				t.Parallel()
				tmp := t.TempDir()
				img := filepath.Join(tmp, "d."+format)
				if err := WriteFile(img, parseIn(t, dir, append(strings.Fields(line), "-f", format))); err != nil {
					t.Fatal(err)
				}
				qemuImg(t, qemu, "check", "-f", "vmdk", img)
				_, vsize := qemuInfo(t, qemu, "vmdk", img)
				if vsize%(1<<20) != 0 {
					t.Errorf("virtual size %d is no whole MiB", vsize)
				}
				got := qemuConvertRaw(t, qemu, "vmdk", img)
				want := mustBuild(t, parseIn(t, dir, append(strings.Fields(line), "-c", strconv.FormatInt(vsize, 10))))
				if int64(len(want)) != vsize {
					t.Fatalf("raw disk of -c %d is %d bytes", vsize, len(want))
				}
				if !bytes.Equal(got, want) {
					t.Error("qemu-img convert's raw disk differs from the package's")
				}
			})
		}
	}
}

// TestVMDKOpen checks that the reader gives the raw disk of both formats,
// freebsd-mkimg's included, through the disk reader's table.
func TestVMDKOpen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inputs(t, dir)
	ref, _ := exec.LookPath("freebsd-mkimg")
	for _, format := range []string{"vmdk", "vmdks"} {
		for _, line := range []string{"-s gpt -p efi:=a -p freebsd-ufs:=b", "-s mbr -S 4096 -P 8192 -p freebsd:=a -p efi:=c", "-s apm -p freebsd-ufs:=a"} {
			t.Run(format+" "+line, func(t *testing.T) {
				t.Parallel()
				args := append(strings.Fields(line), "-y", "-f", format)
				img := mustBuild(t, parseIn(t, dir, args))
				raw := mustBuild(t, parseIn(t, dir, append(strings.Fields(line), "-y", "-c", strconv.Itoa(1<<20)))) // mkimg rounds a VMDK disk up to 1 MiB
				imgs := [][]byte{img}
				if ref != "" {
					want, _ := freebsdDisk(t, ref, dir, args)
					imgs = append(imgs, want)
				}
				for _, b := range imgs {
					if f := containerOf(b[:min(len(b), 4096)]); f == nil || f.Name() != format {
						t.Fatalf("containerOf: %v; want %s", f, format)
					}
					r, _, err := openContainer(bytes.NewReader(b), int64(len(b)))
					if err != nil {
						t.Fatal(err)
					}
					got := make([]byte, r.Size())
					// Odd-sized reads, across grains.
					for off := 0; off < len(got); off += 7777 {
						if _, err := r.ReadAt(got[off:min(off+7777, len(got))], int64(off)); err != nil && err != io.EOF {
							t.Fatal(err)
						}
					}
					if !bytes.Equal(got, raw) {
						t.Fatalf("read back %d bytes; not the raw disk of %d", len(got), len(raw))
					}
					d, err := NewReader(bytes.NewReader(b), int64(len(b)))
					if err != nil {
						t.Fatal(err)
					}
					if n, want := len(d.Table().Partitions), len(parseIn(t, dir, args).Partitions); n != want {
						t.Errorf("%d partitions read; want %d", n, want)
					}
				}
			})
		}
	}
}

// TestVMDKErrors checks that a disk of more grains than mkimg's grain
// directory counts is refused, before the raw disk is made, leaving
// nothing behind.
func TestVMDKErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ format, capacity string }{{"vmdk", "17t"}, {"vmdks", "129t"}} {
		checkRefused(t, "-f "+tc.format+" -s gpt -p efi::1m -c "+tc.capacity, ErrTooLarge, "-f "+tc.format)
	}
}

// TestVMDKVerbose checks that -v reports what freebsd-mkimg -v reports
// for both formats: the format's name, the image and grain sizes, and
// the overhead.
func TestVMDKVerbose(t *testing.T) {
	t.Parallel()
	ref := tooltest.Need(t, "freebsd-mkimg")
	dir := t.TempDir()
	inputs(t, dir)
	for _, format := range []string{"vmdk", "vmdks"} {
		checkFreeBSDVerbose(t, ref, dir, strings.Fields("-v -y -f "+format+" -s gpt -P 16384 -p efi:=a"))
	}
}

// TestVMDKSparse checks both formats made by WriteFile, whose raw disk is
// a sparse file whose holes are skipped, against freebsd-mkimg's, for a
// sparse partition file with data around its holes and a large -c.
func TestVMDKSparse(t *testing.T) {
	t.Parallel()
	ref := tooltest.Need(t, "freebsd-mkimg")
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "sparse"))
	if err != nil {
		t.Fatal(err)
	}
	for _, off := range []int64{0, 5<<20 + 100, 37 << 20, 40<<20 - 1} {
		if _, err := f.WriteAt([]byte("data in a sparse file"), off); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	for _, format := range []string{"vmdk", "vmdks"} {
		args := strings.Fields("-y -f " + format + " -s gpt -c 100m -p freebsd-ufs:=sparse -p efi:=sparse")
		want, _ := freebsdDisk(t, ref, dir, args)
		name := filepath.Join(t.TempDir(), "d")
		if err := WriteFile(name, parseIn(t, dir, args)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if format == "vmdk" {
			compareDisks(t, got, want)
		} else {
			compareVMDKStreams(t, got, want)
		}
	}
}
