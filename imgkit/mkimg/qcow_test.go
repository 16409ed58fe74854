package mkimg

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// qcowMatrix is the command lines of every scheme compared with
// freebsd-mkimg -y in both qcow formats, besides writer_test.go's matrix
// (gpt and mbr): 512- and 4096-byte sectors, -P, geometries, sparse and
// empty partitions, and a capacity that leaves whole clusters of zeros.
var qcowMatrix = []string{
	"-s apm -p freebsd-ufs:=a -p freebsd-swap::64k",
	"-s apm -S 4096 -p freebsd-ufs:=c -p freebsd::1m",
	"-s bsd -p freebsd-ufs:=a -p freebsd-swap::128k",
	"-s bsd -H 16 -T 63 -b boot -p freebsd-ufs:=c",
	"-s ebr -p freebsd:=a -p freebsd::3k",
	"-s ebr -S 4096 -P 8192 -p freebsd:=c",
	"-s vtoc8 -p freebsd-ufs:=a -p freebsd-swap::1m",
	"-s vtoc8 -H 255 -T 63 -p freebsd-ufs:=b",
	"-s gpt -p efi:=a -c 3m",
	"-s gpt -p efi:=a -p freebsd-ufs::5m -p freebsd-swap:=c",
	"-s gpt -S 4096 -P 4096 -p freebsd-ufs:=a -c 1m",
	"-s mbr -p freebsd:=a -c 70k",
	"-s gpt -p efi::1m",
	"-s gpt -p efi:=a -p freebsd-ufs:=sparse -p freebsd-swap:=b:3m",
	"-s gpt -P 4096 -p freebsd-ufs:=sparse -p efi:=d",
}

// qcowInputs writes inputs' files and "sparse", a file of 1 MiB whose
// only data are a few bytes at 600 KiB, its holes skipped by the scan.
func qcowInputs(t *testing.T, dir string) {
	t.Helper()
	inputs(t, dir)
	f, err := os.Create(filepath.Join(dir, "sparse"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(1 << 20); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("data in a sparse file"), 600<<10); err != nil {
		t.Fatal(err)
	}
}

// qcowLines returns qcowMatrix and writer_test.go's matrix.
func qcowLines() []string { return append(slices.Clone(matrix), qcowMatrix...) }

// TestQCOWFreeBSD checks that WriteFile, Write and Build give
// freebsd-mkimg -y -f qcow's and -f qcow2's bytes for every scheme,
// explaining the first difference by the container's part and field. WriteFile links the
// partition files (container_link.go), Build copies them in memory, and
// an absolute offset is copied too.
func TestQCOWFreeBSD(t *testing.T) {
	t.Parallel()
	ref := tooltest.Need(t, "freebsd-mkimg")
	dir := t.TempDir()
	qcowInputs(t, dir)
	for _, format := range []string{"qcow", "qcow2"} {
		for _, line := range qcowLines() {
			t.Run(format+" "+line, func(t *testing.T) {
				t.Parallel()
				args := append(strings.Fields(line), "-y", "-f", format)
				checkFreeBSDWith(t, ref, dir, args, compareQCOW, true)
			})
		}
	}
}

// compareQCOW fails t where the container got differs from want, in the
// words of explainQCOW.
func compareQCOW(t *testing.T, got, want []byte) {
	t.Helper()
	if msg := explainQCOW(got, want); msg != "" {
		t.Fatal(msg)
	}
}

// explainQCOW returns "" when got equals want, or where they first differ
// in words: the header field, or the table or data cluster of want's
// layout.
func explainQCOW(got, want []byte) string {
	if bytes.Equal(got, want) {
		return ""
	}
	n := min(len(got), len(want))
	off := 0
	for off < n && got[off] == want[off] {
		off++
	}
	where := qcowPart(want, int64(off))
	if off == n {
		return fmt.Sprintf("container is %d bytes, freebsd-mkimg's %d (the shorter ends in %s)", len(got), len(want), where)
	}
	return fmt.Sprintf("containers differ at byte %#x, in %s: got %#02x, want %#02x", off, where, got[off], want[off])
}

// qcowPart names the part of the container b that byte off is in.
func qcowPart(b []byte, off int64) string {
	if len(b) < 72 {
		return "a header too short to read"
	}
	be := binary.BigEndian
	version := be.Uint32(b[4:])
	if off < 72 {
		v1 := []struct {
			name string
			end  int64
		}{{"magic", 4}, {"version", 8}, {"backing_file_offset", 16}, {"backing_file_size", 20}, {"mtime", 24}, {"size", 32},
			{"cluster_bits", 33}, {"l2_bits", 34}, {"padding", 36}, {"crypt_method", 40}, {"l1_table_offset", 48}}
		v2 := []struct {
			name string
			end  int64
		}{{"magic", 4}, {"version", 8}, {"backing_file_offset", 16}, {"backing_file_size", 20}, {"cluster_bits", 24}, {"size", 32},
			{"crypt_method", 36}, {"l1_size", 40}, {"l1_table_offset", 48}, {"refcount_table_offset", 56},
			{"refcount_table_clusters", 60}, {"nb_snapshots", 64}, {"snapshots_offset", 72}}
		fields := v2
		if version == 1 {
			fields = v1
		}
		for _, f := range fields {
			if off < f.end {
				return "the header's " + f.name
			}
		}
		return "the header's cluster, past its fields"
	}
	bits := uint(be.Uint32(b[20:]))
	if version == 1 {
		bits = uint(b[32])
	}
	if bits > 30 {
		return "a file whose cluster_bits cannot be read"
	}
	cs := int64(1) << bits
	c := off / cs
	l1 := int64(be.Uint64(b[40:]))
	switch {
	case c == 0:
		return "the header's cluster, past its fields"
	case version != 1 && c >= l1/cs && off < int64(be.Uint64(b[48:])):
		return fmt.Sprintf("the L1 table, entry %d", (off-l1)/8)
	case version != 1 && off < int64(be.Uint64(b[48:]))+int64(be.Uint32(b[56:]))*cs:
		return fmt.Sprintf("the refcount table, entry %d", (off-int64(be.Uint64(b[48:])))/8)
	}
	return fmt.Sprintf("cluster %d (an L2 table, a refcount block or data, past the L1 table at byte %#x)", c, l1)
}

// TestQCOWQemuImg checks the containers with QEMU: qemu-img check finds
// no error in a qcow2 (and says it cannot check a qcow version 1, which
// the test expects so that it notices when QEMU learns to), qemu-img info
// reads the format and the virtual size mkimg chose, and qemu-img convert
// -O raw gives the raw disk of the same command line with that capacity;
// the package's own reader gives the same raw disk.
func TestQCOWQemuImg(t *testing.T) {
	t.Parallel()
	qemu := tooltest.Need(t, "qemu-img")
	dir := t.TempDir()
	inputs(t, dir)
	lines := []string{
		"-s gpt -p efi:=a -p freebsd-ufs::5m -p freebsd-swap:=c",
		"-s gpt -S 4096 -P 4096 -p freebsd-ufs:=a -c 1m",
		"-s mbr -p freebsd:=a -p efi:=b",
		"-s bsd -p freebsd-ufs:=a -p freebsd-swap::128k",
		"-s apm -p freebsd-ufs:=a",
	}
	for _, format := range []string{"qcow", "qcow2"} {
		for _, line := range lines {
			for _, y := range []string{"", " -y"} {
				t.Run(format+" "+line+y, func(t *testing.T) {
					t.Parallel()
					tmp := t.TempDir()
					img := filepath.Join(tmp, "disk."+format)
					args := strings.Fields(line + y + " -f " + format)
					if err := WriteFile(img, parseIn(t, dir, args)); err != nil {
						t.Fatal(err)
					}
					out, err := exec.Command(qemu, "check", img).CombinedOutput()
					switch {
					case format == "qcow2" && (err != nil || !bytes.Contains(out, []byte("No errors were found"))):
						t.Errorf("qemu-img check: %v\n%s", err, out)
					case format == "qcow" && !bytes.Contains(out, []byte("does not support checks")):
						t.Errorf("qemu-img check of a qcow version 1 image: %v\n%s (QEMU checks version 1 now: make the test require a clean check)", err, out)
					}
					gotFormat, vsize := qemuInfo(t, qemu, "", img)
					raw, err := Build(parseIn(t, dir, strings.Fields(line+y+" -c "+strconv.FormatInt(vsize, 10))))
					if err != nil {
						t.Fatal(err)
					}
					if gotFormat != format || vsize != int64(len(raw)) || vsize%map[string]int64{"qcow": 4 << 10, "qcow2": 64 << 10}[format] != 0 { // mkimg's clusters
						t.Errorf("qemu-img info: format %s, virtual size %d; want %s, %d, a whole number of clusters", gotFormat, vsize, format, len(raw))
					}
					if b := qemuConvertRaw(t, qemu, "", img); !bytes.Equal(b, raw) {
						t.Errorf("qemu-img convert -O raw: %d bytes that are not the raw disk's %d", len(b), len(raw))
					}
					c, err := os.ReadFile(img)
					if err != nil {
						t.Fatal(err)
					}
					r, _, err := openContainer(bytes.NewReader(c), int64(len(c)))
					if err != nil {
						t.Fatal(err)
					}
					mine := make([]byte, r.Size())
					if _, err := r.ReadAt(mine, 0); err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(mine, raw) {
						t.Error("the reader's disk is not the raw disk")
					}
				})
			}
		}
	}
}

// TestQCOWForeign checks that the reader opens containers QEMU makes:
// qcow version 1, qcow2 version 2 (compat=0.10) and 3 (compat=1.1), with
// 512-byte and 2 MiB clusters, each giving the raw disk converted.
func TestQCOWForeign(t *testing.T) {
	t.Parallel()
	qemu := tooltest.Need(t, "qemu-img")
	dir := t.TempDir()
	inputs(t, dir)
	raw, err := Build(parseIn(t, dir, strings.Fields("-s gpt -p efi:=a -p freebsd-ufs::3m -p freebsd-swap:=c -c 5m")))
	if err != nil {
		t.Fatal(err)
	}
	rawFile := filepath.Join(dir, "disk.raw")
	if err := os.WriteFile(rawFile, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []string{"qcow", "qcow2 compat=0.10", "qcow2 compat=1.1", "qcow2 compat=1.1,cluster_size=512", "qcow2 compat=0.10,cluster_size=2M"} {
		t.Run(opts, func(t *testing.T) {
			t.Parallel()
			format, o, _ := strings.Cut(opts, " ")
			img := filepath.Join(t.TempDir(), "disk."+format)
			args := []string{"convert", "-O", format}
			if o != "" {
				args = append(args, "-o", o)
			}
			qemuImg(t, qemu, append(args, rawFile, img)...)
			c, err := os.ReadFile(img)
			if err != nil {
				t.Fatal(err)
			}
			if f := containerOf(c[:min(len(c), 512)]); f == nil || f.Name() != format {
				t.Fatalf("containerOf: %v, want %s", f, format)
			}
			r, _, err := openContainer(bytes.NewReader(c), int64(len(c)))
			if err != nil {
				t.Fatal(err)
			}
			size := r.Size()
			got := make([]byte, size)
			if _, err := r.ReadAt(got, 0); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, raw) {
				t.Errorf("the %s container's disk (%d bytes) is not the raw disk (%d bytes)", opts, len(got), len(raw))
			}
		})
	}
}

// TestQCOWReproducible checks that without -y the same inputs in two
// directories give the same containers, from WriteFile and from Build (a
// qcow container records no time or id).
func TestQCOWReproducible(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"qcow", "qcow2"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			// Build copies the partitions in memory; WriteFile links
			// them and hashes them for the GUIDs separately.
			checkReproducible(t, strings.Fields("-s gpt -p efi:=a -p freebsd-ufs:=b -f "+format))
		})
	}
}

// TestQCOWTooLarge checks that a disk past what a qcow header or QEMU
// holds is refused with one line naming the format and the limit, and
// that nothing is left behind in the output's directory.
func TestQCOWTooLarge(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ line, want string }{
		{"-s gpt -p efi::1k -f qcow2 -c 2p", "needs a refcount table of 129 clusters, past the 128 QEMU opens"},
		{"-s gpt -p efi::1k -f qcow2 -c 3p", "needs an L1 table of 6291456 entries, past the 4194304 QEMU opens (512 MiB each)"},
		{"-s gpt -p efi::1k -f qcow -c 600t", "needs an L1 table of 314572800 entries, past the 268435455 a qcow version 1 image holds (2 MiB each)"},
		{"-s gpt -p efi::1k -f qcow2 -c 8000p", "-f qcow2: "},
	} {
		t.Run(tc.line, func(t *testing.T) {
			t.Parallel()
			checkRefused(t, tc.line, ErrTooLarge, tc.want)
		})
	}
	// A large qcow2 is written, sparse, in little space (its raw disk is
	// a temporary file, which ext4 holds up to 16 TiB).
	o, err := Parse(strings.Fields("-s gpt -p efi::1k -f qcow2 -c 8t"))
	if err != nil {
		t.Fatal(err)
	}
	img := filepath.Join(t.TempDir(), "disk.qcow2")
	if err := WriteFile(img, o); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(img); err != nil || fi.Size() > 64<<20 {
		t.Errorf("a 2 PiB qcow2: %v, %v", fi, err)
	}
}

// qcowSeed returns a small qcow2 (or qcow) container the writer makes.
func qcowSeed(t testing.TB, format string) []byte {
	b, err := Build(&Options{Scheme: "gpt", Format: format, FreeBSDTestMode: true,
		Partitions: []Partition{{Type: "efi", Size: 4096}, {Type: "freebsd-ufs", Size: 70 << 10}}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestQCOWOpenErrors checks that the disk reader opens qcow containers
// through imgkit/vdisk/qcow (whose tests break them in every way it
// bounds): a broken one is ErrFormat naming the container and the field,
// and the fuzz corpus's qemu-img containers hold the 1 KiB MBR disk mkimg
// makes, a version 1 one read as that disk's table.
func TestQCOWOpenErrors(t *testing.T) {
	t.Parallel()
	b := qcowSeed(t, "qcow2")
	binary.BigEndian.PutUint32(b[20:], 8)
	if _, err := NewReader(bytes.NewReader(b), int64(len(b))); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "qcow2 container: cluster_bits 8") {
		t.Errorf("NewReader: %v", err)
	}
	disk, err := Build(&Options{Scheme: "mbr", FreeBSDTestMode: true, Partitions: []Partition{{Type: "freebsd", Size: 512}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"qemu-qcow2-compressed-512", "qemu-qcow-compressed"} {
		c := readCorpus(t, filepath.Join("..", "vdisk", "qcow", "testdata", "fuzz", "FuzzOpenQCOW2", name))
		d, err := NewReader(bytes.NewReader(c), int64(len(c)))
		if err != nil || d.Table().Scheme != "mbr" {
			t.Fatalf("%s: %v", name, err)
		}
		r, _, err := openContainer(bytes.NewReader(c), int64(len(c)))
		if err != nil {
			t.Fatal(err)
		}
		got := make([]byte, d.Size())
		if _, err := r.ReadAt(got, 0); err != nil || !bytes.Equal(got, disk) {
			t.Errorf("%s: %v, or not the 1 KiB MBR disk", name, err)
		}
	}
}

// readCorpus returns the []byte of a one-value fuzz corpus file.
func readCorpus(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	lit, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "go test fuzz v1\n[]byte(")
	if v, err := strconv.Unquote(strings.TrimSuffix(lit, ")")); ok && err == nil {
		return []byte(v)
	}
	t.Fatalf("%s: not a fuzz corpus file of one []byte", name)
	return nil
}

// TestQCOWVerbose checks that -v prints freebsd-mkimg's lines for the
// qcow formats: the format's name and qcow_resize's size and cluster
// size.
func TestQCOWVerbose(t *testing.T) {
	t.Parallel()
	ref := tooltest.Need(t, "freebsd-mkimg")
	dir := t.TempDir()
	inputs(t, dir)
	for _, format := range []string{"qcow", "qcow2"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			checkFreeBSDVerbose(t, ref, dir, strings.Fields("-y -v -s gpt -p efi:=a -p freebsd-ufs:=b -f "+format))
		})
	}
}
