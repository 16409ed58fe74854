package mkimg

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/cd9660"
	"github.com/fixturegen/fixturegen/imgkit/ffs"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/msdos"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// insideTree is the tree each file system inside the disks holds.
var insideTree = fstest.MapFS{
	"hello.txt":     {Data: []byte("hello from a partition\n"), Mode: 0o644},
	"sub/inner.txt": {Data: bytes.Repeat([]byte("inner file, two blocks long. "), 300), Mode: 0o644},
	"sub":           {Mode: 0o755 | os.ModeDir},
}

// insideStamp is every time of insideTree's images.
var insideStamp = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)

// insideImages builds, with the library, a FAT image of sectorSize-byte
// sectors, a UFS image and an ISO 9660 image with Rock Ridge, all of
// insideTree, in dir, and returns their paths.
func insideImages(t *testing.T, dir string, sectorSize int) (fat, ufs, iso string) {
	t.Helper()
	src := fstree.FS(insideTree)
	write := func(name string, b []byte, err error) string {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	b, err := msdos.Build(src, &msdos.Options{Size: 4 << 20, BytesPerSector: sectorSize, Timestamp: insideStamp})
	fat = write("esp.img", b, err)
	b, err = ffs.Build(src, &ffs.Options{Timestamp: insideStamp})
	ufs = write("root.img", b, err)
	b, err = cd9660.Build(src, &cd9660.Options{RockRidge: true, Timestamp: insideStamp})
	iso = write("cd.iso", b, err)
	return fat, ufs, iso
}

// TestFileSystemsInside puts a FAT, a UFS and an ISO 9660 image made by
// the library into GPT and MBR disks of 512- and 4096-byte sectors and
// has each file system's own tools read it where the disk puts it:
// fsck.fat -n on the FAT partition's bytes, mdir and mcopy with mtools'
// @@offset, sleuthkit's fls and icat with -o (and -b) for the FAT and UFS
// partitions, and isoinfo and xorriso on the ISO partition's bytes. The
// partitions are found with sfdisk -d, as a user would find them. Each
// disk holds a FAT of 512- and one of 4096-byte sectors with
// FIXTUREGEN_LONG=1, by default one of the two, in turn.
func TestFileSystemsInside(t *testing.T) {
	t.Parallel()
	tools := map[string]string{}
	for _, name := range []string{"sfdisk", "fsck.fat", "mdir", "mcopy", "fls", "icat", "isoinfo", "xorriso"} {
		tools[name] = tooltest.Need(t, name)
	}
	for k, line := range []string{
		"-s gpt -p efi/ESP:=esp.img -p freebsd-ufs/root:=root.img -p - -p ms-basic-data/cd:=cd.iso",
		"-s gpt -S 4096 -p efi/ESP:=esp.img -p freebsd-ufs/root:=root.img -p ms-basic-data/cd:=cd.iso",
		"-s mbr -H 255 -T 63 -p fat16b:=esp.img -p freebsd:=root.img -p ntfs:=cd.iso",
		"-s mbr -S 4096 -p - -p fat16b:=esp.img -p freebsd:=root.img -p ntfs:=cd.iso",
	} {
		for _, fatSector := range tooltest.Pick(k, []int{512, 4096}) {
			t.Run(fmt.Sprintf("fat%d/%s", fatSector, line), func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				insideImages(t, dir, fatSector)
				o, err := Parse(strings.Fields(line))
				if err != nil {
					t.Fatal(err)
				}
				for i := range o.Partitions {
					if f := o.Partitions[i].File; f != "" {
						o.Partitions[i].File = filepath.Join(dir, f)
					}
				}
				disk := filepath.Join(dir, "disk.img")
				if err := WriteFile(disk, o); err != nil {
					t.Fatal(err)
				}
				secsz := 512
				if o.SectorSize != 0 {
					secsz = o.SectorSize
				}
				parts := partitionsOf(t, tools["sfdisk"], disk, secsz)
				if len(parts) != 3 {
					t.Fatalf("sfdisk -d finds %d partitions, want 3: %v", len(parts), parts)
				}
				checkFAT(t, tools, disk, secsz, parts[0])
				checkUFS(t, tools, disk, secsz, parts[1])
				checkISO(t, tools, disk, secsz, parts[2])
			})
		}
	}
}

// partSpan is a partition's place on a disk, in sectors.
type partSpan struct{ start, sectors int64 }

// partitionsOf returns the partitions sfdisk -d lists on disk, in
// order, reading a disk of other than 512-byte sectors through a loop
// device of its sector size (blockDevice).
func partitionsOf(t *testing.T, sfdisk, disk string, secsz int) []partSpan {
	t.Helper()
	var out []partSpan
	for _, p := range sfdiskDump(t, sfdisk, blockDevice(t, disk, uint64(secsz))) {
		out = append(out, partSpan{int64(p.start), int64(p.sectors)})
	}
	return out
}

// runToolErr runs a command and returns its standard output, or its
// whole output and the error when it exits non-zero.
func runToolErr(name string, args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String() + stderr.String(), err
	}
	return stdout.String(), nil
}

// extractPartition copies a partition's bytes out of disk, through an
// io.SectionReader, into a file of its own for the tools that read a
// whole file system image.
func extractPartition(t *testing.T, disk string, secsz int, p partSpan, name string) string {
	t.Helper()
	f, err := os.Open(disk)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := filepath.Join(t.TempDir(), name)
	w, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := io.Copy(w, io.NewSectionReader(f, p.start*int64(secsz), p.sectors*int64(secsz))); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkFAT checks the FAT partition: fsck.fat -n finds nothing to fix
// in its bytes, mdir and mcopy (-i disk@@OFFSET) list and read its files
// in place, and fls and icat (-o SECTOR -b SECTORSIZE) do too.
func checkFAT(t *testing.T, tools map[string]string, disk string, secsz int, p partSpan) {
	t.Helper()
	part := extractPartition(t, disk, secsz, p, "fat.img")
	if out, err := runToolErr(tools["fsck.fat"], "-n", part); err != nil {
		t.Errorf("fsck.fat -n on the FAT partition: %v\n%s", err, out)
	}
	at := fmt.Sprintf("%s@@%d", disk, p.start*int64(secsz))
	if out := runTool(t, tools["mdir"], "-i", at, "-/", "::/"); !strings.Contains(out, "hello.txt") || !strings.Contains(out, "inner.txt") {
		t.Errorf("mdir -/ -i %s does not list hello.txt and sub/inner.txt:\n%s", at, out)
	}
	for name, f := range insideTree {
		if f.Mode.IsDir() {
			continue
		}
		if got := runTool(t, tools["mcopy"], "-i", at, "::/"+name, "-"); got != string(f.Data) {
			t.Errorf("mcopy -i %s ::/%s gives %d bytes, not the file's %d", at, name, len(got), len(f.Data))
		}
	}
	checkSleuthkit(t, tools, disk, secsz, p, "FAT")
}

// checkUFS checks the UFS partition with fls and icat (-o SECTOR).
func checkUFS(t *testing.T, tools map[string]string, disk string, secsz int, p partSpan) {
	t.Helper()
	checkSleuthkit(t, tools, disk, secsz, p, "UFS")
}

// flsLine is one file line of fls -r -p: type, inode and path.
var flsLine = regexp.MustCompile(`^r/r (\d+)(?:-\d+-\d+)?:\s+(.+)$`)

// checkSleuthkit checks that fls -r -p lists every file of insideTree
// in the partition and that icat reads each one's contents.
func checkSleuthkit(t *testing.T, tools map[string]string, disk string, secsz int, p partSpan, what string) {
	t.Helper()
	off := []string{"-o", strconv.FormatInt(p.start, 10), "-b", strconv.Itoa(secsz)}
	inodes := map[string]string{}
	for _, line := range strings.Split(runTool(t, tools["fls"], append(append([]string{"-r", "-p"}, off...), disk)...), "\n") {
		if m := flsLine.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			inodes[m[2]] = m[1]
		}
	}
	for name, f := range insideTree {
		if f.Mode.IsDir() {
			continue
		}
		inode, ok := inodes[name]
		if !ok {
			t.Errorf("fls -r -p %s %s on the %s partition does not list %s: %v", strings.Join(off, " "), disk, what, name, inodes)
			continue
		}
		if got := runTool(t, tools["icat"], append(off, disk, inode)...); got != string(f.Data) {
			t.Errorf("icat on the %s partition's %s (inode %s) gives %d bytes, not the file's %d", what, name, inode, len(got), len(f.Data))
		}
	}
}

// checkISO checks the ISO 9660 partition's bytes: isoinfo -R lists and
// extracts its files, and xorriso finds and extracts them too. An ISO
// image has 2048-byte blocks whatever the disk's sectors, so its bytes
// are read from a file of their own.
func checkISO(t *testing.T, tools map[string]string, disk string, secsz int, p partSpan) {
	t.Helper()
	part := extractPartition(t, disk, secsz, p, "cd.iso")
	list := runTool(t, tools["isoinfo"], "-R", "-f", "-i", part)
	for name, f := range insideTree {
		if !strings.Contains(list, "/"+name+"\n") {
			t.Errorf("isoinfo -R -f does not list /%s:\n%s", name, list)
		}
		if f.Mode.IsDir() {
			continue
		}
		if got := runTool(t, tools["isoinfo"], "-R", "-i", part, "-x", "/"+name); got != string(f.Data) {
			t.Errorf("isoinfo -R -x /%s gives %d bytes, not the file's %d", name, len(got), len(f.Data))
		}
		dst := filepath.Join(t.TempDir(), "x")
		runTool(t, tools["xorriso"], "-osirrox", "on", "-indev", part, "-extract", "/"+name, dst)
		if got, err := os.ReadFile(dst); err != nil || !bytes.Equal(got, f.Data) {
			t.Errorf("xorriso -extract /%s gives %d bytes (%v), not the file's %d", name, len(got), err, len(f.Data))
		}
	}
}
