package mkimg

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// vhdSchemeLines are the command lines, without -f, that vhdMatrix runs
// in each of VHD's and VHDX's formats: every scheme, 512- and 4096-byte
// sectors, -P, -H/-T geometries (which VHD's Disk Geometry takes when both
// are 2 to 255, counting cylinders in logical sectors), zero blocks between
// data (holes in the dynamic VHD's BAT), a BAT of more than one sector
// and a disk of 19 VHDX payload blocks.
var vhdSchemeLines = []string{
	"-s gpt -p efi:=a -p freebsd-ufs:=b",
	"-s gpt -p efi:=a -p - -p freebsd:=b -p -",
	"-s gpt -S 4096 -p efi:=a -p freebsd:=b -p freebsd-vinum::7k",
	"-s gpt -P 4096 -p efi:=a",
	"-s gpt -S 4096 -P 65536 -p efi:=b -p mbr:=d",
	"-s gpt -p freebsd-ufs:=a -p freebsd-swap::9m -p efi:=b",
	"-s gpt -c 300m -p efi:=a -p freebsd-ufs::250m -p freebsd-swap:=c",
	"-s mbr -p freebsd:=a -p efi::1m",
	"-s mbr -H 16 -T 63 -p freebsd:=a -p efi::3k",
	"-s mbr -S 4096 -H 255 -T 63 -p freebsd:=a",
	"-s mbr -H 2 -T 2 -p freebsd::5m -p efi:=c",
	"-s mbr -H 16 -T 1 -p freebsd:=a",
	"-s bsd -p freebsd-ufs:=a -p freebsd-swap::1m",
	"-s bsd -H 4 -T 32 -p freebsd-ufs:=a",
	"-s apm -p freebsd-ufs:=a -p freebsd-swap:=b",
	"-s apm -S 4096 -p freebsd-ufs:=a",
	"-s ebr -p freebsd:=a -p freebsd::3m",
	"-s ebr -S 4096 -p freebsd:=b",
	"-s vtoc8 -p freebsd-ufs:=a -p freebsd-swap::2m",
	"-s vtoc8 -H 8 -T 32 -p freebsd-ufs:=a",
	"-s mbr -p freebsd::200m",
}

// vhdFormats are the formats of this file's tests.
var vhdFormats = []string{"vhd", "vhdf", "vhdx"}

// TestVHDFreeBSDIdentity checks that WriteFile, Write and Build give
// freebsd-mkimg -y's bytes for every line of vhdSchemeLines in each of
// vhd, vhdf and vhdx.
func TestVHDFreeBSDIdentity(t *testing.T) {
	t.Parallel()
	var lines []string
	for _, f := range vhdFormats {
		for _, l := range vhdSchemeLines {
			lines = append(lines, "-f "+f+" "+l)
		}
	}
	checkFreeBSDMatrix(t, lines)
}

// TestVHDReproducible checks that without -y the same command line gives
// the same bytes in two runs from two directories, that the Unique Id
// (VHD) and Virtual Disk ID (VHDX) follow the documented rule, that the
// Time Stamp is 0 without -t and -t's time with it, and that other
// partition contents give another id.
func TestVHDReproducible(t *testing.T) {
	t.Parallel()
	for _, f := range vhdFormats {
		t.Run(f, func(t *testing.T) {
			t.Parallel()
			line := strings.Fields("-f " + f + " -s gpt -p efi:=a -p freebsd-ufs:=b")
			disk := checkReproducible(t, line)
			dir := t.TempDir()
			inputs(t, dir)
			id, ts := containerIDAndTime(t, f, disk)
			if id == counterGUID(4) || id == (GUID{}) {
				t.Errorf("id %x is the -y counter or zero", id)
			}
			if ts != 0 && f != "vhdx" {
				t.Errorf("Time Stamp %d without -t, want 0", ts)
			}
			o := parseIn(t, dir, line)
			stamp := time.Date(2000, 1, 1, 0, 0, 12345, 0, time.UTC).Unix() // the Time Stamp's epoch and 12345 s
			o.Timestamp = &stamp
			b := mustBuild(t, o)
			if _, ts := containerIDAndTime(t, f, b); f != "vhdx" && ts != 12345 {
				t.Errorf("Time Stamp %d with -t %d, want 12345", ts, stamp)
			}
			other := parseIn(t, dir, strings.Fields("-f "+f+" -s gpt -p efi:=b -p freebsd-ufs:=b"))
			if id2, _ := containerIDAndTime(t, f, mustBuild(t, other)); id2 == id {
				t.Error("other partition contents give the same id")
			}
			y := parseIn(t, dir, append(line, "-y"))
			if idy, _ := containerIDAndTime(t, f, mustBuild(t, y)); idy != counterGUID(4) {
				t.Errorf("-y id %x, want mkimg's fourth counter value", idy)
			}
		})
	}
}

// containerIDAndTime returns the id a VHD's footer or a VHDX's metadata
// holds, as stored, and a VHD's Time Stamp.
func containerIDAndTime(t *testing.T, format string, b []byte) (GUID, uint32) {
	t.Helper()
	var id GUID
	r, n := bytes.NewReader(b), int64(len(b))
	if format == "vhdx" {
		_, v := containerField(t, r, n, "VHDX metadata", "Virtual Disk ID")
		copy(id[:], v)
		return id, 0
	}
	_, v := containerField(t, r, n, "VHD footer", "Unique Id")
	copy(id[:], v)
	_, ts := containerField(t, r, n, "VHD footer", "Time Stamp")
	return id, binary.BigEndian.Uint32(ts)
}

// TestVHDDerivedID checks the documented rule itself: the VHD's Unique Id
// is derivedGUID(seed, "vhd", 0) of the GUID rule's seed (of the layout
// as resized and the partition's content digest), stored as GUID.encode stores
// it.
func TestVHDDerivedID(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inputs(t, dir)
	o := parseIn(t, dir, strings.Fields("-f vhdf -s mbr -p freebsd:=a"))
	l, err := planIn(o, spoolPlace{}, true)
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	a, err := os.ReadFile(filepath.Join(dir, "a"))
	if err != nil {
		t.Fatal(err)
	}
	var want GUID
	derivedGUID(l.seed([][sha256.Size]byte{[sha256.Size]byte(digestOf(a))}), "vhd", 0).encode(want[:])
	got, _ := containerIDAndTime(t, "vhdf", mustBuild(t, o))
	if got != want {
		t.Errorf("Unique Id %x, want derivedGUID(seed, \"vhd\", 0) %x", got, want)
	}
}

// TestVHDQemu checks the containers with qemu-img: check passes for
// VHDX (qemu-img does not check its vpc format, VHD: "This image format
// does not support checks"); info's virtual size is the disk's for VHDX
// and, for VHD, the Disk Geometry's cylinders x heads x sectors, which
// qemu's vpc driver takes for a creator it does not know (mkimg's
// "*img"): the disk for a dynamic VHD, whose size mkimg rounds to the
// geometry, but less than Current Size for a fixed VHD that mkimg then
// rounded to a whole MiB; and convert -O raw gives that many bytes of
// fixturegen's raw disk of the same command line with that capacity.
func TestVHDQemu(t *testing.T) {
	t.Parallel()
	qemu := tooltest.Need(t, "qemu-img")
	dir := t.TempDir()
	inputs(t, dir)
	for _, f := range vhdFormats {
		for _, line := range []string{
			"-s gpt -p efi:=a -p freebsd-ufs:=b",
			"-s mbr -S 4096 -p freebsd:=a -p efi::5m",
			"-s bsd -H 16 -T 63 -p freebsd-ufs:=a",
			"-s gpt -c 300m -p efi:=a -p freebsd-ufs::250m -p freebsd-swap:=c",
		} {
			t.Run(f+" "+line, func(t *testing.T) {
				t.Parallel()
				o := parseIn(t, dir, strings.Fields("-f "+f+" "+line))
				name := filepath.Join(t.TempDir(), "disk."+f)
				if err := WriteFile(name, o); err != nil {
					t.Fatal(err)
				}
				qf := map[string]string{"vhd": "vpc", "vhdf": "vpc", "vhdx": "vhdx"}[f]
				if f == "vhdx" && strings.Contains(line, "-S 4096") {
					// qemu's vhdx driver opens only 512-byte logical
					// sectors ("Operation not supported").
					return
				}
				if f == "vhdx" {
					qemuImg(t, qemu, "check", "-f", qf, name)
				}
				disk := diskSizeFile(t, f, name)
				want := disk
				if f != "vhdx" {
					_, g := fileField(t, name, "VHD footer", "Disk Geometry")
					want = int64(binary.BigEndian.Uint16(g[0:2])) * int64(g[2]) * int64(g[3]) * 512
					if f == "vhd" && want != disk {
						t.Errorf("dynamic VHD of %d bytes, CHS %d bytes: mkimg rounds to the geometry", disk, want)
					}
				}
				if _, got := qemuInfo(t, qemu, qf, name); got != want {
					t.Errorf("qemu-img info: virtual size %d, want %d (disk %d)", got, want, disk)
				}
				// The raw disks are compared as files, a piece at a
				// time: they are up to 300 MiB.
				got := qemuConvertRawFile(t, qemu, qf, name)
				raw := filepath.Join(t.TempDir(), "disk.raw")
				if err := WriteFile(raw, parseIn(t, dir, strings.Fields(fmt.Sprintf("%s -c %d", line, disk)))); err != nil {
					t.Fatal(err)
				}
				if size := fileSize(t, raw); size != disk {
					t.Fatalf("raw disk with -c %d is %d bytes", disk, size)
				}
				d, err := tooltest.FirstDiff(got, raw)
				if err != nil {
					t.Fatal(err)
				}
				if size := fileSize(t, got); size != want || (d >= 0 && d < want) {
					t.Errorf("qemu-img convert -O raw (%d bytes) differs from the raw disk's first %d bytes at %#x", size, want, d)
				}
			})
		}
	}
}

// diskSizeFile returns the size of the raw disk the container of format
// in the file name holds, reading only its footer or metadata.
func diskSizeFile(t *testing.T, format, name string) int64 {
	t.Helper()
	if format == "vhdx" {
		_, v := fileField(t, name, "VHDX metadata", "Virtual Disk Size")
		return int64(binary.LittleEndian.Uint64(v))
	}
	_, v := fileField(t, name, "VHD footer", "Current Size")
	return int64(binary.BigEndian.Uint64(v))
}

// fileSize returns the size of the file name.
func fileSize(t *testing.T, name string) int64 {
	t.Helper()
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestVHDRead checks the readers: NewReader opens each format's
// container, finds the table, and gives back each partition's bytes; the
// raw disk it reads is the raw format's of the same command line and
// capacity. TestContainerFileSystemInside reads a FAT inside.
func TestVHDRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inputs(t, dir)
	fat, _, _ := insideImages(t, dir, 512)
	fatBytes, err := os.ReadFile(fat)
	if err != nil {
		t.Fatal(err)
	}
	a, err := os.ReadFile(filepath.Join(dir, "a"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range vhdFormats {
		t.Run(f, func(t *testing.T) {
			t.Parallel()
			line := "-s gpt -p efi:=" + filepath.Base(fat) + " -p freebsd-swap::5m -p freebsd-ufs:=a"
			b := mustBuild(t, parseIn(t, dir, strings.Fields("-f "+f+" "+line)))
			d, err := NewReader(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			raw := mustBuild(t, parseIn(t, dir, strings.Fields(fmt.Sprintf("%s -c %d", line, d.Size()))))
			got, err := io.ReadAll(io.NewSectionReader(d.r, 0, d.Size()))
			if err != nil || !bytes.Equal(got, raw) {
				t.Fatalf("the disk read (%d bytes, %v) is not the raw disk (%d bytes)", len(got), err, len(raw))
			}
			for i, want := range map[int][]byte{1: fatBytes, 3: a} {
				p, err := d.Partition(i)
				if err != nil {
					t.Fatal(err)
				}
				got := make([]byte, len(want))
				if _, err := p.ReadAt(got, 0); err != nil || !bytes.Equal(got, want) {
					t.Errorf("partition %d: %v, or not its contents", i, err)
				}
			}
		})
	}
}

// TestVHDReadQemu checks that the readers open containers qemu-img
// writes (a dynamic VHD with qemu's own block layout and Current Size,
// and a VHDX with 32 MiB blocks), giving back the raw disk converted.
func TestVHDReadQemu(t *testing.T) {
	t.Parallel()
	qemu := tooltest.Need(t, "qemu-img")
	dir := t.TempDir()
	inputs(t, dir)
	raw := filepath.Join(dir, "disk.raw")
	if err := WriteFile(raw, parseIn(t, dir, strings.Fields("-s gpt -p efi:=a -p freebsd-swap::7m -p freebsd-ufs:=b"))); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ format, opts string }{{"vpc", "force_size=on"}, {"vhdx", "subformat=dynamic"}} {
		t.Run(c.format, func(t *testing.T) {
			t.Parallel()
			name := filepath.Join(t.TempDir(), "disk."+c.format)
			qemuImg(t, qemu, "convert", "-f", "raw", "-O", c.format, "-o", c.opts, raw, name)
			d, err := OpenReader(name)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			got, err := io.ReadAll(io.NewSectionReader(d.r, 0, d.Size()))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got[:min(len(got), len(want))], want[:min(len(got), len(want))]) || int64(len(got)) < int64(len(want)) {
				t.Errorf("the disk read (%d bytes) is not the raw disk (%d bytes)", len(got), len(want))
			}
			if n := len(d.Table().Partitions); n != 3 {
				t.Errorf("%d partitions read, want 3", n)
			}
		})
	}
}

// TestVHDErrors checks the refusals: a disk past VHD's 2 TiB or VHDX's
// 64 TiB, and a -t a VHD's Time Stamp cannot hold, each one line naming
// the option, with nothing left where the output would be.
func TestVHDErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		line, want string
		is         error
	}{
		{"-f vhd -s gpt -c 3t -p efi::1m", "-f vhd: a disk of 3298534883328 bytes is past VHD's 2 TiB limit", ErrTooLarge},
		{"-f vhdf -s mbr -p freebsd::2t", "past VHD's 2 TiB limit", ErrTooLarge},
		{"-f vhd -s gpt -c 2190433320961 -p efi::1m", "-f vhd: a disk of 2190433321472 bytes is past VHD's 2 TiB limit (2040 GiB", ErrTooLarge},
		{"-f vhdx -s gpt -c 65t -p efi::1m", "-f vhdx: a disk of 71468255805440 bytes is past VHDX's 64 TiB limit", ErrTooLarge},
		{"-f vhd -t 946684799 -s gpt -p efi::1m", "-t 946684799: a VHD's Time Stamp holds times from 2000-01-01", ErrOption},
		{"-f vhdf -t 99999999999 -s gpt -p efi::1m", "-t 99999999999", ErrOption},
	} {
		t.Run(c.line, func(t *testing.T) {
			t.Parallel()
			checkRefused(t, c.line, c.is, c.want)
		})
	}
}

// TestVHDLargest checks the largest VHD the package writes, 2040 GiB of
// sparse partitions: it is written (a dynamic VHD of few blocks), and
// qemu-img takes Current Size for its size, the Disk Geometry being the
// largest there is.
func TestVHDLargest(t *testing.T) {
	t.Parallel()
	qemu := tooltest.Need(t, "qemu-img")
	name := filepath.Join(t.TempDir(), "big.vhd")
	o, err := Parse(strings.Fields("-f vhd -s gpt -c 2040g -p efi::1m"))
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(name, o); err != nil {
		t.Fatal(err)
	}
	const vhdMaxSize = 0xff000000 * 512 // 2040 GiB, the largest Current Size mkimg writes
	if _, got := qemuInfo(t, qemu, "vpc", name); got != vhdMaxSize {
		t.Errorf("qemu-img info: virtual size %d, want %d", got, int64(vhdMaxSize))
	}
}

// TestVHDFields checks that Fields of a container names its own records
// (the VHD footers, VHDX's metadata) and places the disk's fields at
// their bytes in the file: each of the raw disk's fields is in the
// container's fields with the same bytes at its offset there.
func TestVHDFields(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inputs(t, dir)
	line := "-y -s gpt -p efi:=a -p freebsd-swap::3m -p freebsd-ufs:=b"
	for f, own := range map[string]string{"vhd": "VHD footer copy", "vhdf": "VHD footer", "vhdx": "VHDX metadata"} {
		t.Run(f, func(t *testing.T) {
			t.Parallel()
			b := mustBuild(t, parseIn(t, dir, strings.Fields("-f "+f+" "+line)))
			fields, err := Fields(bytes.NewReader(b), int64(len(b)), nil)
			if err != nil {
				t.Fatal(err)
			}
			d, err := NewReader(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			raw := mustBuild(t, parseIn(t, dir, strings.Fields(fmt.Sprintf("%s -c %d", line, d.Size()))))
			rawFields, err := Fields(bytes.NewReader(raw), int64(len(raw)), nil)
			if err != nil {
				t.Fatal(err)
			}
			at := map[[2]string]int64{}
			named := false
			for _, fd := range fields {
				if fd.Offset+fd.Size > int64(len(b)) {
					t.Errorf("%s %s at %d+%d past the file's %d bytes", fd.Path, fd.Name, fd.Offset, fd.Size, len(b))
				}
				at[[2]string{fd.Path, fd.Name}] = fd.Offset
				named = named || fd.Path == own
			}
			if !named {
				t.Errorf("no %q fields", own)
			}
			for _, rf := range rawFields {
				if rf.Offset < 0 {
					continue
				}
				off, ok := at[[2]string{rf.Path, rf.Name}]
				if !ok || off < 0 || !bytes.Equal(b[off:off+rf.Size], raw[rf.Offset:rf.Offset+rf.Size]) {
					t.Errorf("%s %s: at %d in the container (%v), not the raw disk's bytes at %d", rf.Path, rf.Name, off, ok, rf.Offset)
				}
			}
		})
	}
}
