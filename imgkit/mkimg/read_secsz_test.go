package mkimg

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestReadMBRSectorSize checks that an MBR made with -S 512, 1024, 2048
// and 4096 is read with its own sector size, its partitions at the bytes
// the layout put them, and that one grown by -c past its last partition,
// which ends nowhere near the disk's end, falls back to 512.
func TestReadMBRSectorSize(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inputs(t, dir)
	for _, c := range []struct {
		line  string
		secsz int
	}{
		{"-s mbr -p freebsd:=a -p efi::1m -p - -p fat32:=b", 512},
		{"-s mbr -S 1024 -p freebsd:=a -p efi::1m -p - -p fat32:=b", 1024},
		{"-s mbr -S 2048 -p freebsd:=a -p efi::1m", 2048},
		{"-s mbr -S 4096 -p freebsd:=a -p efi::1m -p - -p fat32:=b", 4096},
		{"-s mbr -S 4096 -H 16 -T 63 -p freebsd:=b -p ntfs:=d", 4096},
		{"-s mbr -c 8m -p freebsd:=a", 512},
	} {
		t.Run(c.line, func(t *testing.T) {
			t.Parallel()
			o := parseIn(t, dir, strings.Fields(c.line))
			disk := mustBuild(t, o)
			tab, err := ReadTable(bytes.NewReader(disk), int64(len(disk)))
			if err != nil {
				t.Fatal(err)
			}
			if tab.Scheme != "mbr" || tab.SectorSize != c.secsz {
				t.Fatalf("read as %s with %d-byte sectors; want mbr with %d", tab.Scheme, tab.SectorSize, c.secsz)
			}
			l, err := plan(o)
			if err != nil {
				t.Fatal(err)
			}
			defer l.close()
			if len(tab.Partitions) != len(l.parts) {
				t.Fatalf("%d partitions read; want %d", len(tab.Partitions), len(l.parts))
			}
			for i, p := range l.parts {
				e := tab.Partitions[i]
				start, size := int64(p.start*l.secsz), int64(l.roundTrack(p.sectors)*l.secsz)
				if e.Index != p.index+1 || e.Start != start || e.Size != size {
					t.Errorf("partition %d read at byte %d, %d bytes; want slot %d at %d, %d bytes", e.Index, e.Start, e.Size, p.index+1, start, size)
				}
			}
		})
	}
}

// TestReadSfdiskMBR checks that an MBR sfdisk writes (512-byte sectors,
// partitions aligned to 1 MiB, one ending before the disk's end) is read
// with 512-byte sectors at the offsets sfdisk gave.
func TestReadSfdiskMBR(t *testing.T) {
	t.Parallel()
	sfdisk := tooltest.Need(t, "sfdisk")
	for _, c := range []struct {
		script  string
		starts  []int64
		sizes   []int64
		diskMiB int64
	}{
		{"label: dos\nstart=2048, size=4096, type=83\nstart=6144, type=c\n", []int64{2048, 6144}, []int64{4096, 16384 - 6144}, 8},
		{"label: dos\nstart=2048, size=2048, type=83\n", []int64{2048}, []int64{2048}, 64},
	} {
		img := filepath.Join(t.TempDir(), "disk.img")
		if err := os.WriteFile(img, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(img, c.diskMiB<<20); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(sfdisk, "--no-reread", "--no-tell-kernel", img)
		cmd.Stdin = strings.NewReader(c.script)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("sfdisk: %v\n%s", err, out)
		}
		f, err := os.Open(img)
		if err != nil {
			t.Fatal(err)
		}
		tab, err := ReadTable(f, c.diskMiB<<20)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if tab.Scheme != "mbr" || tab.SectorSize != 512 || len(tab.Partitions) != len(c.starts) {
			t.Fatalf("read as %s, %d-byte sectors, %d partitions; want mbr, 512, %d", tab.Scheme, tab.SectorSize, len(tab.Partitions), len(c.starts))
		}
		for i, e := range tab.Partitions {
			if e.Start != c.starts[i]*512 || e.Size != c.sizes[i]*512 {
				t.Errorf("partition %d at byte %d, %d bytes; want %d, %d", i+1, e.Start, e.Size, c.starts[i]*512, c.sizes[i]*512)
			}
		}
	}
}
