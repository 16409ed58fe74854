package imgfmt_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// made runs tool (found with tooltest.Need) with args, in which "IMG"
// stands for an image file of size bytes it is to format, and returns the
// image's bytes.
func made(t *testing.T, size int64, tool string, args ...string) []byte {
	t.Helper()
	path := tooltest.Need(t, tool)
	dir := t.TempDir()
	img := filepath.Join(dir, "fs.img")
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, size); err != nil {
		t.Fatal(err)
	}
	for i, a := range args {
		switch a {
		case "IMG":
			args[i] = img
		case "DIR":
			args[i] = dir
		}
	}
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %q: %v\n%s", tool, args, err, out)
	}
	f, err := os.Open(img)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	head := make([]byte, 256<<10)
	n, _ := f.ReadAt(head, 0)
	return head[:n]
}

// TestIdentifyTools checks that Identify names the file systems and
// volumes the Linux tools make, each as its own format.
func TestIdentifyTools(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		want string
		make func(t *testing.T) []byte
	}{
		{"NTFS", func(t *testing.T) []byte { return made(t, 4<<20, "mkntfs", "-F", "-Q", "-q", "IMG") }},
		{"exFAT", func(t *testing.T) []byte { return made(t, 4<<20, "mkfs.exfat", "IMG") }},
		{"squashfs", func(t *testing.T) []byte {
			return made(t, 0, "mksquashfs", "DIR", "IMG", "-noappend", "-quiet", "-no-progress", "-e", "fs.img")
		}},
		{"UDF", func(t *testing.T) []byte { return made(t, 2<<20, "mkudffs", "IMG") }},
		{"ext2", func(t *testing.T) []byte { return made(t, 1<<20, "mkfs.ext2", "-q", "-F", "IMG") }},
		{"ext3", func(t *testing.T) []byte { return made(t, 4<<20, "mkfs.ext3", "-q", "-F", "IMG") }},
		{"ext4", func(t *testing.T) []byte { return made(t, 4<<20, "mkfs.ext4", "-q", "-F", "IMG") }},
		{"Btrfs", func(t *testing.T) []byte { return made(t, 128<<20, "mkfs.btrfs", "-q", "IMG") }},
		{"XFS", func(t *testing.T) []byte { return made(t, 300<<20, "mkfs.xfs", "-q", "-K", "IMG") }},
		{"swap", func(t *testing.T) []byte { return made(t, 1<<20, "mkswap", "IMG") }},
	} {
		t.Run(tc.want, func(t *testing.T) {
			t.Parallel()
			b := tc.make(t)
			got, ok := imgfmt.Identify(bytes.NewReader(b), int64(len(b)))
			if !ok || got.Name != tc.want {
				t.Errorf("Identify: %+v, %v; want %s", got, ok, tc.want)
			}
		})
	}
}

// TestIdentifyMagic checks Identify on the signatures of formats no tool
// here makes, written at their places, and that it names nothing in an
// image of zeros or a short file.
func TestIdentifyMagic(t *testing.T) {
	t.Parallel()
	put := func(off int, magic string) []byte {
		b := make([]byte, 300<<10)
		copy(b[off:], magic)
		return b
	}
	zfs := make([]byte, 300<<10)
	binary.LittleEndian.PutUint64(zfs[128<<10+5*1024:], 0x00bab10c)
	lvm := put(512, "LABELONE")
	copy(lvm[512+24:], "LVM2 001")
	for want, b := range map[string][]byte{
		"HFS+":  put(1024, "H+\x00\x04"),
		"HFSX":  put(1024, "HX\x00\x05"),
		"APFS":  put(32, "NXSB"),
		"LUKS":  put(0, "LUKS\xba\xbe\x00\x02"),
		"F2FS":  put(1024, "\x10\x20\xf5\xf2"),
		"ZFS":   zfs,
		"LVM2":  lvm,
		"":      make([]byte, 300<<10),
		"short": []byte("NTF"),
	} {
		got, ok := imgfmt.Identify(bytes.NewReader(b), int64(len(b)))
		if want == "" || want == "short" {
			if ok {
				t.Errorf("%s: Identify names %+v", want, got)
			}
			continue
		}
		if !ok || got.Name != want {
			t.Errorf("Identify: %+v, %v; want %s", got, ok, want)
		}
	}
	err := error(&imgfmt.UnsupportedError{Foreign: imgfmt.Foreign{Name: "NTFS", What: "an NTFS file system"}})
	if !errors.Is(err, imgfmt.ErrUnsupported) || err.Error() != "holds an NTFS file system, which fixturegen does not read" {
		t.Errorf("UnsupportedError: %q", err)
	}
}
