package qcow

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt/imgfmttest"
	"github.com/fixturegen/fixturegen/imgkit/vdisk/internal/vdisktest"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// corpus returns the seed name of FuzzOpenQCOW2's corpus.
func corpus(t testing.TB, name string) []byte {
	t.Helper()
	return vdisktest.ReadCorpus(t, filepath.Join("testdata", "fuzz", "FuzzOpenQCOW2", name))
}

// tinyDiskSHA256 is the SHA-256 of the 1 KiB MBR disk (mkimg -y -s mbr
// -p freebsd::512) the corpus's compressed qemu-img containers hold;
// mkimg's TestQCOWCorpusDisk checks that they hold that disk.
const tinyDiskSHA256 = "0b038e442e99cb29a90f93747c16d6e7fa83e1022997a59cbb08c12357a072ac"

// tinyDisk returns the 1 KiB MBR disk, as the corpus's compressed qcow2
// reads.
func tinyDisk(t testing.TB) []byte {
	t.Helper()
	b := corpus(t, "qemu-qcow2-compressed-512")
	d, size, err := openQCOW(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	disk := make([]byte, size)
	if _, err := d.ReadAt(disk, 0); err != nil || fmt.Sprintf("%x", sha256.Sum256(disk)) != tinyDiskSHA256 {
		t.Fatalf("the corpus's compressed qcow2: %d bytes, %v, or not the 1 KiB MBR disk", size, err)
	}
	return disk
}

// seedDisk is a raw disk of 80 KiB of data for writeQCOW, as a GPT disk
// of a 4 KiB and a 70 KiB partition is.
func seedDisk() []byte {
	raw := make([]byte, 128<<10)
	for i := range 80 << 10 {
		raw[i] = byte(i*7 + i>>9)
	}
	return raw
}

// TestQCOWOpenErrors checks that a container broken in each of the ways
// open bounds is refused with a line saying what is wrong, and that a
// table broken past what open checks fails the read, never panicking.
func TestQCOWOpenErrors(t *testing.T) {
	t.Parallel()
	be := binary.BigEndian
	v2 := vdisktest.Write(t, Format{Version: 2}, seedDisk())
	v1 := vdisktest.Write(t, Format{Version: 1}, seedDisk())
	l1 := int64(be.Uint64(v2[40:]))
	l2 := int64(be.Uint64(v2[l1:]) & qcowV2OffsetMask)
	for _, tc := range []struct {
		name   string
		base   []byte
		change func(b []byte) []byte
		want   string
	}{
		{"cluster_bits 8", v2, func(b []byte) []byte { be.PutUint32(b[20:], 8); return b }, "cluster_bits 8: want 9 to 21"},
		{"cluster_bits 40", v2, func(b []byte) []byte { be.PutUint32(b[20:], 40); return b }, "cluster_bits 40"},
		{"v1 cluster_bits 17", v1, func(b []byte) []byte { b[32] = 17; return b }, "cluster_bits 17: want 9 to 16"},
		{"v1 l2_bits 14", v1, func(b []byte) []byte { b[33] = 14; return b }, "l2_bits 14"},
		{"version 4", v2, func(b []byte) []byte { be.PutUint32(b[4:], 4); return b }, "version 4"},
		{"backing file", v2, func(b []byte) []byte { be.PutUint64(b[8:], 512); return b }, "backing file"},
		{"encrypted", v2, func(b []byte) []byte { be.PutUint32(b[32:], 1); return b }, "encrypted"},
		{"l1_size too small", v2, func(b []byte) []byte { be.PutUint32(b[36:], 0); return b }, "less than the virtual size"},
		{"l1_size huge", v2, func(b []byte) []byte { be.PutUint64(b[24:], 1<<62); be.PutUint32(b[36:], 1<<31); return b }, "past 4194304"},
		{"L1 past the end", v2, func(b []byte) []byte { be.PutUint64(b[40:], uint64(len(b))); return b }, "runs past the file's end"},
		{"L1 unaligned", v2, func(b []byte) []byte { be.PutUint64(b[40:], 0x10008); return b }, "not at a cluster's start"},
		{"size past int64", v2, func(b []byte) []byte { be.PutUint64(b[24:], 1<<63); return b }, "virtual size"},
		{"L2 past the end", v2, func(b []byte) []byte { be.PutUint64(b[l1:], uint64(len(b))|qcowCopied); return b }, "L1 entry 0: the L2 table at byte"},
		{"truncated", v2, func(b []byte) []byte { return b[:40] }, "shorter than a qcow header"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := tc.change(slices.Clone(tc.base))
			_, _, err := openQCOW(bytes.NewReader(b), int64(len(b)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error saying %q", err, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name  string
		entry uint64
		want  string
	}{
		{"data past the end", uint64(len(v2)) | qcowCopied, "runs past the file's end"},
		{"compressed", qcowV2Compressed | 0x10000, "the compressed cluster at byte 0x10000 (512 bytes) does not inflate"},
		{"unaligned", 0x10200 | qcowCopied, "not at a cluster's start"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := slices.Clone(v2)
			be.PutUint64(b[l2:], tc.entry)
			r, _, err := openQCOW(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.ReadAt(make([]byte, 512), 0); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ReadAt: %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

// qcowTinyV1 returns a qcow version 1 container of disk by hand: 512-byte
// clusters (the least QEMU reads), an L1 table of one entry, one L2 table
// of 64 entries, and disk (1 KiB) in two data clusters, so that the
// fuzzer mutates a small input (the writer's 4 KiB clusters make 16 KiB).
func qcowTinyV1(disk []byte) []byte {
	b := make([]byte, 1536+len(disk))
	be := binary.BigEndian
	h := (*qcowHeaderV1)(b[:48])
	be.PutUint32(h.magic(), qcowMagic)
	be.PutUint32(h.version(), 1)
	be.PutUint64(h.size(), uint64(len(disk)))
	h.cluster_bits()[0], h.l2_bits()[0] = 9, 6
	be.PutUint64(h.l1_table_offset(), 512)
	be.PutUint64(b[512:], 1024) // the L2 table
	for i := range len(disk) / 512 {
		be.PutUint64(b[1024+8*i:], uint64(1536+512*i))
	}
	copy(b[1536:], disk)
	return b
}

// qcowTinyExtended returns a qcow2 version 3 container of disk with
// extended L2 entries by hand, for the fuzzer: 16 KiB clusters (the least
// extended L2 entries allow), the L1 table in cluster 1, the L2 table in
// cluster 2, and disk (1 KiB) in the first two subclusters of cluster 3,
// the third subcluster marked as zeros.
func qcowTinyExtended(disk []byte) []byte {
	const cs = 16 << 10
	b := make([]byte, 3*cs+len(disk))
	be := binary.BigEndian
	h := (*qcowHeaderV2)(b[:72])
	be.PutUint32(h.magic(), qcowMagic)
	be.PutUint32(h.version(), 3)
	be.PutUint32(h.cluster_bits(), 14)
	be.PutUint64(h.size(), uint64(len(disk)))
	be.PutUint32(h.l1_size(), 1)
	be.PutUint64(h.l1_table_offset(), cs)
	h3 := (*qcowHeaderV3)(b[:qcowV3HeaderLen])
	be.PutUint64(h3.incompatible_features(), qcowExtendedL2)
	be.PutUint32(h3.refcount_order(), 4)
	be.PutUint32(h3.header_length(), qcowV3HeaderLen)
	be.PutUint64(b[cs:], 2*cs|qcowCopied)    // L1 entry 0
	be.PutUint64(b[2*cs:], 3*cs|qcowCopied)  // L2 entry 0
	be.PutUint64(b[2*cs+8:], 0b11|0b100<<32) // its subcluster bitmap
	copy(b[3*cs:], disk)
	return b
}

// TestQCOWTinySeeds checks that the fuzzer's seeds (the hand-made
// version 1 and extended L2 containers, and qemu-img's compressed ones)
// read as the 1 KiB MBR disk they hold, the compressed ones through
// their compressed clusters, so that the fuzzer starts from containers
// that reach that code.
func TestQCOWTinySeeds(t *testing.T) {
	t.Parallel()
	disk := tinyDisk(t)
	seeds := map[string][]byte{"qcowTinyV1": qcowTinyV1(disk), "qcowTinyExtended": qcowTinyExtended(disk)}
	compressed := []string{"qemu-qcow2-compressed-512", "qemu-qcow-compressed"}
	for _, name := range compressed {
		seeds[name] = corpus(t, name)
	}
	for name, b := range seeds {
		d, size, err := openQCOW(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		got := make([]byte, size)
		if _, err := d.ReadAt(got, 0); err != nil || !bytes.Equal(got, disk) {
			t.Errorf("%s: %v, or not the 1 KiB MBR disk", name, err)
		}
		if inflated := d.inflated.key != [qcowInflatedClusters]int64{}; inflated != slices.Contains(compressed, name) {
			t.Errorf("%s: a compressed cluster read: %v", name, inflated)
		}
	}
}

// FuzzOpenQCOW2 checks that openQCOW never panics on a mutated container
// and that a disk it opens reads, at its start, its end and a middle,
// without panicking or reading past the file. The seeds are small, since
// the fuzzer slows to a few inputs a second on the writer's containers of
// 16 KiB and more: qcowTinyV1's, qcowTinyExtended's (extended L2
// entries), and in testdata/fuzz qcow2 versions 2 and 3 that qemu-img
// made with 512-byte clusters from a 1 KiB MBR disk, plain and
// compressed (-c), and a compressed qcow version 1.
func FuzzOpenQCOW2(f *testing.F) {
	imgfmttest.NoMinimize(f) // the seeds are disk images
	disk := tinyDisk(f)
	f.Add(qcowTinyV1(disk))
	f.Add(qcowTinyExtended(disk))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, size, err := openQCOW(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			vdisktest.CheckOpenError(t, err, int64(len(b)))
			return
		}
		buf := make([]byte, 64<<10)
		for _, off := range []int64{0, size / 2, max(size-int64(len(buf)), 0)} {
			if _, err := r.ReadAt(buf, off); err != nil && err != io.EOF {
				return
			}
		}
		vdisktest.CheckLayout(t, r, int64(len(b)))
	})
}

// noise returns n bytes that do not compress: a SHA-256 chain.
func noise(n int) []byte {
	b := make([]byte, 0, n+sha256.Size)
	sum := sha256.Sum256([]byte("noise"))
	for len(b) < n {
		b = append(b, sum[:]...)
		sum = sha256.Sum256(sum[:])
	}
	return b[:n]
}

// qcowReadAll opens the container file name with openQCOW and returns
// its whole disk.
func qcowReadAll(t *testing.T, name string) ([]byte, error) {
	t.Helper()
	c, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	r, size, err := openQCOW(bytes.NewReader(c), int64(len(c)))
	if err != nil {
		return nil, err
	}
	got := make([]byte, size)
	if _, err := r.ReadAt(got, 0); err != nil {
		return nil, err
	}
	return got, nil
}

// qcowRawFile writes a 4 MiB raw disk to dir: a MiB of text, which
// compresses, a MiB and more of bytes that do not, and zeros.
func qcowRawFile(t *testing.T, dir string) (string, []byte) {
	t.Helper()
	raw := make([]byte, 4<<20)
	for i := 0; i < 1<<20; i += 64 {
		copy(raw[i:], fmt.Sprintf("line %08d of a raw disk that compresses well, and more\n", i))
	}
	copy(raw[1<<20:], noise(1<<20+12345))
	name := filepath.Join(dir, "disk.raw")
	if err := os.WriteFile(name, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return name, raw
}

// TestQCOWCompressedAndExtended checks that the reader gives the raw disk
// of containers qemu-img convert writes with compressed clusters (-c, in
// qcow2 versions 2 and 3 with clusters of 512 bytes to 2 MiB, and in qcow
// version 1) and with extended L2 entries (extended_l2=on, alone and with
// -c): the disk qemu-img convert -O raw gives back.
func TestQCOWCompressedAndExtended(t *testing.T) {
	t.Parallel()
	qemu := tooltest.Need(t, "qemu-img")
	dir := t.TempDir()
	rawFile, raw := qcowRawFile(t, dir)
	for _, opts := range []string{
		"qcow2 -c",
		"qcow2 -c compat=0.10",
		"qcow2 -c cluster_size=512",
		"qcow2 -c compat=0.10,cluster_size=2M",
		"qcow -c",
		"qcow2 extended_l2=on",
		"qcow2 extended_l2=on,cluster_size=16k",
		"qcow2 -c extended_l2=on,cluster_size=128k",
	} {
		t.Run(opts, func(t *testing.T) {
			t.Parallel()
			f := strings.Fields(opts)
			img := filepath.Join(t.TempDir(), "disk."+f[0])
			args := []string{"convert", "-O", f[0]}
			for _, o := range f[1:] {
				if o == "-c" {
					args = append(args, o)
				} else {
					args = append(args, "-o", o)
				}
			}
			out, err := exec.Command(qemu, append(args, rawFile, img)...).CombinedOutput()
			if err != nil && f[0] != "qcow" {
				// qemu-img 7.2 exits 1 after writing a compressed qcow
				// version 1 image, which it then reads back whole.
				t.Fatalf("qemu-img %s: %v\n%s", strings.Join(args, " "), err, out)
			}
			if back := vdisktest.QemuConvertRaw(t, qemu, f[0], img); !bytes.Equal(back, raw) {
				t.Fatalf("qemu-img reads back %d bytes that are not the raw disk", len(back))
			}
			got, err := qcowReadAll(t, img)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, raw) {
				t.Errorf("the %s container's disk (%d bytes) is not the raw disk (%d bytes)", opts, len(got), len(raw))
			}
			checkConcurrentReads(t, img, raw)
		})
	}
}

// checkConcurrentReads reads the container file name's disk from 4
// goroutines at once, each in pieces of its own size that cross clusters
// in another order, and checks every piece against raw (for the race
// detector, and for the clusters kept inflated).
func checkConcurrentReads(t *testing.T, name string, raw []byte) {
	t.Helper()
	c, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := openQCOW(bytes.NewReader(c), int64(len(c)))
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 4)
	for g := range 4 {
		go func() {
			step := 1000 + 4099*g
			buf := make([]byte, step)
			for i := range len(raw) / step {
				off := (i * 7919 % (len(raw) / step)) * step
				if _, err := r.ReadAt(buf, int64(off)); err != nil {
					errs <- err
					return
				}
				if !bytes.Equal(buf, raw[off:off+step]) {
					errs <- fmt.Errorf("%d bytes at %d are not the raw disk's", step, off)
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestQCOWSubclusters checks extended L2 entries whose subclusters are
// not all alike: qemu-io writes data into some subclusters of a
// cluster, zeros into others (the zero bitmap) and leaves the rest
// unallocated, and the reader gives what qemu-img convert -O raw gives.
func TestQCOWSubclusters(t *testing.T) {
	t.Parallel()
	qemu := tooltest.Need(t, "qemu-img")
	qemuIO := tooltest.Need(t, "qemu-io")
	img := filepath.Join(t.TempDir(), "sub.qcow2")
	vdisktest.Qemu(t, qemu, "create", "-f", "qcow2", "-o", "extended_l2=on,cluster_size=64k", img, "1M")
	for _, c := range []string{
		"write -P 0xa1 0 2k",     // subcluster 0 of cluster 0
		"write -P 0xb2 6k 3k",    // subclusters 3 and 4, partly
		"write -P 0xc3 64k 64k",  // all of cluster 1
		"write -z 66k 4k",        // subclusters 1 and 2 of cluster 1, zeros
		"write -P 0xd4 200k 512", // a sector of cluster 3
		"write -P 0xe5 1022k 2k", // the last subcluster
		"write -z -u 130k 2k",    // a subcluster of zeros, unmapped
	} {
		if out, err := exec.Command(qemuIO, "-f", "qcow2", "-c", c, img).CombinedOutput(); err != nil {
			t.Fatalf("qemu-io -c %q: %v\n%s", c, err, out)
		}
	}
	want := vdisktest.QemuConvertRaw(t, qemu, "qcow2", img)
	got, err := qcowReadAll(t, img)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("byte %#x: %#x, qemu-img's %#x", i, got[i], want[i])
			}
		}
	}
	if bytes.Count(want, []byte{0xa1}) != 2048 || bytes.Count(want, []byte{0xc3}) != 60<<10 {
		t.Errorf("qemu-io's writes are not in the disk as the test expects")
	}
}

// TestQCOWCompressedRefused checks what the reader refuses about
// compressed clusters and extended L2 entries, each with a line saying
// what: zstd streams (qemu-img's compression_type=zstd), a compressed
// descriptor whose stream inflates to less than a cluster or lies, and
// subclusters both allocated and zero.
func TestQCOWCompressedRefused(t *testing.T) {
	t.Parallel()
	qemu := tooltest.Need(t, "qemu-img")
	dir := t.TempDir()
	rawFile, _ := qcowRawFile(t, dir)
	convert := func(opts ...string) []byte {
		img := filepath.Join(t.TempDir(), "disk.qcow2")
		vdisktest.Qemu(t, qemu, append(append([]string{"convert", "-O", "qcow2"}, opts...), rawFile, img)...)
		b, err := os.ReadFile(img)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	readErr := func(b []byte) error {
		r, size, err := openQCOW(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return err
		}
		_, err = r.ReadAt(make([]byte, size), 0)
		return err
	}
	be := binary.BigEndian
	// firstL2 returns the offset of the first L2 table of b.
	firstL2 := func(b []byte) int {
		return int(be.Uint64(b[be.Uint64(b[40:]):]) & qcowV2OffsetMask)
	}
	zstd := convert("-c", "-o", "compression_type=zstd")
	if err := readErr(zstd); err == nil || !strings.Contains(err.Error(), "zstd (compression_type 1), which fixturegen does not read") {
		t.Errorf("zstd: %v", err)
	}
	comp := convert("-c")
	l2 := firstL2(comp)
	for _, tc := range []struct {
		name   string
		change func(b []byte)
		want   string
	}{
		{"stream cut short", func(b []byte) {
			e := be.Uint64(b[l2:])
			be.PutUint64(b[l2:], e&^(0xff<<54)) // one sector of the stream
		}, "less than the cluster's 65536"},
		{"stream past the end", func(b []byte) {
			be.PutUint64(b[l2:], qcowV2Compressed|uint64(len(b)))
		}, "is not in the file"},
		{"not deflate", func(b []byte) {
			be.PutUint64(b[l2:], qcowV2Compressed|0x30) // the header
		}, "does not inflate"},
		{"type 0 with its bit", func(b []byte) {
			b[79] |= qcowCompressionType
		}, "compression_type 0"},
		{"type 7", func(b []byte) {
			b[79] |= qcowCompressionType
			b[qcowCompressionTypeOff] = 7
		}, "compression_type 7: want 0 (deflate) or 1 (zstd)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := slices.Clone(comp)
			tc.change(b)
			if err := readErr(b); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error saying %q", err, tc.want)
			}
		})
	}
	ext := convert("-o", "extended_l2=on")
	l2 = firstL2(ext)
	b := slices.Clone(ext)
	be.PutUint64(b[l2+8:], 1|1<<32)
	if err := readErr(b); err == nil || !strings.Contains(err.Error(), "both allocated and zero") {
		t.Errorf("a subcluster allocated and zero: %v", err)
	}
	b = slices.Clone(ext)
	be.PutUint32(b[20:], 13) // 8 KiB clusters
	if err := readErr(b); err == nil || !strings.Contains(err.Error(), "extended L2 entries with cluster_bits 13") {
		t.Errorf("extended L2 entries with 8 KiB clusters: %v", err)
	}
}

// TestFieldsAndPlace checks that the header's fields are named as the
// formats' specifications name them, at their offsets in the file, with
// the values the header holds, and that a header refused is an
// *imgfmt.FormatError at the field's byte.
func TestFieldsAndPlace(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		version    uint32
		path, name string
		off, size  int64
		value      string
	}{
		{1, "qcow header", "cluster_bits", 32, 1, "12 (0xc)"},
		{2, "qcow2 header", "version", 4, 4, "2 (0x2)"},
		{2, "qcow2 header", "refcount_table_clusters", 56, 4, "1 (0x1)"},
	} {
		f := Format{Version: c.version}
		b := vdisktest.Write(t, f, seedDisk())
		r, err := f.Open(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		vdisktest.CheckField(t, r, c.path, c.name, c.off, c.size, c.value)
	}
	b := vdisktest.Write(t, Format{Version: 2}, seedDisk())
	binary.BigEndian.PutUint32(b[20:], 3)
	_, err := Format{Version: 2}.Open(bytes.NewReader(b), int64(len(b)))
	vdisktest.CheckPlace(t, err, nil, "qcow2", 20, "cluster_bits")
}
