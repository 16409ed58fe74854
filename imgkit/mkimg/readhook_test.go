package mkimg

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt/imgfmttest"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// checkFuzzTable runs a scheme's read hook on disk and checks what a
// caller relies on: an error or a table, never both; a table with fields
// and sectors of at least 512 bytes; and entries with 1-based slots whose
// byte ranges do not overflow. An entry may reach past the disk's end (a
// truncated disk keeps its table); the disk reader says so, not the hook.
func checkFuzzTable(t *testing.T, read func(io.ReaderAt, int64) (*Table, error), disk []byte) {
	t.Helper()
	tab, err := read(bytes.NewReader(disk), int64(len(disk)))
	if (tab == nil) == (err == nil) {
		t.Fatalf("table %v with error %v", tab, err)
	}
	if err != nil {
		imgfmttest.CheckFormatError(t, err, int64(len(disk)), "", ErrFormat)
		return
	}
	if len(tab.Fields) == 0 || tab.SectorSize < 512 {
		t.Fatalf("table without fields or with %d-byte sectors", tab.SectorSize)
	}
	for _, e := range tab.Partitions {
		if e.Index < 1 || e.Start < 0 || e.Size < 0 || e.Start+e.Size < e.Start {
			t.Fatalf("entry %+v: bad slot or byte range", e)
		}
	}
}

// TestReadTableFindsEveryScheme checks that ReadTable, trying the schemes
// in its order, finds each scheme's own table on a disk of that scheme,
// with as many partitions as the writer put there. A bare chain of EBRs
// is also a valid MBR, and reads as one (an MBR's extended partition is
// read as a chain: TestReadExtendedPartition).
func TestReadTableFindsEveryScheme(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inputs(t, dir)
	lines := map[string][]string{
		"apm":   {"-s apm -p freebsd-ufs:=a -p freebsd-swap::64k", "-s apm -S 4096 -p freebsd:=b"},
		"bsd":   {"-s bsd -p freebsd-ufs:=a -p freebsd-swap::64k", "-s bsd -H 16 -T 63 -p freebsd-zfs:=c"},
		"ebr":   {"-s ebr -p freebsd:=a -p fat32::64k", "-s ebr -p fat16b:=b", "-s ebr -S 4096 -p freebsd:=a -p fat32:=c"},
		"gpt":   {"-s gpt -p efi:=a -p freebsd-ufs::64k", "-s gpt -S 4096 -p efi:=b"},
		"mbr":   {"-s mbr -p freebsd:=a -p efi::64k", "-s mbr -p fat32:=b"},
		"vtoc8": {"-s vtoc8 -p freebsd-ufs:=a -p freebsd-swap::64k", "-s vtoc8 -H 16 -T 63 -p freebsd-zfs:=c"},
	}
	for _, name := range Schemes() {
		if len(lines[name]) == 0 {
			t.Errorf("scheme %s has no command line here", name)
		}
		for _, line := range lines[name] {
			t.Run(line, func(t *testing.T) {
				t.Parallel()
				o := parseIn(t, dir, strings.Fields(line))
				disk := mustBuild(t, o)
				tab, err := ReadTable(bytes.NewReader(disk), int64(len(disk)))
				if err != nil {
					t.Fatal(err)
				}
				if want := map[string]string{"ebr": "mbr"}[name]; want != "" && tab.Scheme == want {
					return
				}
				if tab.Scheme != name {
					t.Fatalf("read as %s, want %s", tab.Scheme, name)
				}
				used := 0
				for _, p := range o.Partitions {
					if !p.Unused {
						used++
					}
				}
				if len(tab.Partitions) != used {
					t.Fatalf("%d partitions read, want %d", len(tab.Partitions), used)
				}
			})
		}
	}
}

// TestReadExtendedPartition checks that an MBR's extended partition, a
// chain of EBRs made by -s ebr, opens as that chain: the disk's FS lists
// the logical partitions inside p1, numbered in chain order (an unused
// slot leaves no EBR behind), and each holds its file's bytes.
func TestReadExtendedPartition(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inputs(t, dir)
	chain := mustBuild(t, parseIn(t, dir, strings.Fields("-s ebr -H 16 -T 63 -p freebsd:=a -p - -p fat32:=c -p fat16b:=b")))
	if err := os.WriteFile(filepath.Join(dir, "chain"), chain, 0o644); err != nil {
		t.Fatal(err)
	}
	disk := mustBuild(t, parseIn(t, dir, strings.Fields("-s mbr -H 16 -T 63 -p ebr:=chain -p efi:=d")))
	d, err := NewReader(bytes.NewReader(disk), int64(len(disk)))
	if err != nil {
		t.Fatal(err)
	}
	fsys := d.FS(func(r io.ReaderAt, size int64) *describe.Kind {
		k := Describe(nil)
		var head [512]byte
		if n, _ := r.ReadAt(head[:], 0); n == len(head) && k.Match(head[:]) {
			return &k
		}
		return nil
	})
	for name, file := range map[string]string{"p1/p1": "a", "p1/p2": "c", "p1/p3": "b"} {
		got, err := fs.ReadFile(fsys, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[:len(want)], want) {
			t.Errorf("%s does not hold %s's bytes", name, file)
		}
	}
	if _, err := fs.Stat(fsys, "p1/p4"); err == nil {
		t.Errorf("p1/p4 exists; the chain holds three partitions")
	}
}
