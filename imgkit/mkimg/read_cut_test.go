package mkimg

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
)

// cutSchemes are a two-partition disk of each scheme whose reader the
// cut-image rule covers, with types the scheme takes.
var cutSchemes = map[string][2]string{
	"gpt":   {"efi", "freebsd-ufs"},
	"mbr":   {"fat32", "freebsd"},
	"ebr":   {"fat32", "freebsd"},
	"bsd":   {"freebsd-ufs", "freebsd-swap"},
	"apm":   {"freebsd-ufs", "freebsd-swap"},
	"vtoc8": {"freebsd-ufs", "freebsd-swap"},
}

// cutDisk builds scheme's two-partition disk (64 KiB, then 256 KiB) and
// returns it with its table.
func cutDisk(t testing.TB, scheme string) ([]byte, *Table) {
	t.Helper()
	types := cutSchemes[scheme]
	disk, err := Build(&Options{Scheme: scheme, Partitions: []Partition{{Type: types[0], Size: 64 << 10}, {Type: types[1], Size: 256 << 10}}})
	if err != nil {
		t.Fatal(err)
	}
	tab, err := readAs(scheme, disk)
	if err != nil || len(tab.Partitions) != 2 {
		t.Fatalf("the whole %s disk: %v, %v", scheme, tab, err)
	}
	return disk, tab
}

// readAs reads disk's table with scheme's reader, and checks its entries
// as ReadTable does: an ebr disk, whose first EBR also reads as an MBR,
// is read as ebr, as the extended partition that holds it is.
func readAs(scheme string, disk []byte) (*Table, error) {
	size := int64(len(disk))
	tab, err := schemes[scheme].read(bytes.NewReader(disk), size)
	if err != nil {
		return nil, err
	}
	return tab, checkEntries(tab, size)
}

// TestReadCutImages checks every scheme's reader on an image cut short,
// as blkid, mmls and fdisk list one: cut in its second partition, the
// table reads with both partitions as stored and a problem naming the
// partition, its bytes and the image's end; the first partition reads
// whole and the second as far as the image goes, then fails with
// imgfmt.ErrTruncated, never a short read taken for its end. Cut before
// the second partition, that partition is listed and none of it reads.
func TestReadCutImages(t *testing.T) {
	t.Parallel()
	for scheme := range cutSchemes {
		t.Run(scheme, func(t *testing.T) {
			t.Parallel()
			disk, whole := cutDisk(t, scheme)
			p1, p2 := whole.Partitions[0], whole.Partitions[1]
			for _, cut := range []int64{p2.Start + 64<<10, p2.Start} {
				b := disk[:cut]
				tab, err := readAs(scheme, b)
				if err != nil {
					t.Fatalf("cut at byte %d: %v", cut, err)
				}
				d := &Disk{r: bytes.NewReader(b), size: cut, table: tab}
				if tab.Scheme != scheme || len(tab.Partitions) != 2 || !samePlace(tab.Partitions[1], p2) {
					t.Fatalf("cut at byte %d: %s %+v", cut, tab.Scheme, tab.Partitions)
				}
				want := fmt.Sprintf("%s partition %d (bytes %d to %d) ends past the image's end (%d bytes); listing what is there", scheme, p2.Index, p2.Start, p2.Start+p2.Size, cut)
				if cut == p2.Start {
					want = fmt.Sprintf("%s partition %d (bytes %d to %d) lies past the image's end (%d bytes)", scheme, p2.Index, p2.Start, p2.Start+p2.Size, cut)
				}
				if p := strings.Join(tab.Problems, "; "); !strings.Contains(p, want) {
					t.Errorf("cut at byte %d: problems %q lack %q", cut, p, want)
				}
				sec, _ := d.Partition(p1.Index)
				if got, err := io.ReadAll(sec); err != nil || int64(len(got)) != p1.Size {
					t.Errorf("cut at byte %d: partition 1: %d bytes, %v", cut, len(got), err)
				}
				// its file's size is what the image holds of it, so that
				// fs.ReadFile takes no more memory than that
				if fi, err := fs.Stat(d.FS(nil), fmt.Sprintf("p%d", p2.Index)); err != nil || fi.Size() != cut-p2.Start {
					t.Errorf("cut at byte %d: partition 2's file: %v, %v; want %d bytes", cut, fi, err, cut-p2.Start)
				}
				sec, _ = d.Partition(p2.Index)
				got, err := io.ReadAll(sec)
				var te *imgfmt.TruncatedError
				if !errors.As(err, &te) || int64(len(got)) != cut-p2.Start || te.Size != cut {
					t.Errorf("cut at byte %d: partition 2: %d bytes, %v; want the %d bytes there and an imgfmt.TruncatedError", cut, len(got), err, cut-p2.Start)
				}
			}
		})
	}
}

// samePlace reports whether a and b are the same slot at the same bytes.
func samePlace(a, b Entry) bool {
	return a.Index == b.Index && a.Start == b.Start && a.Size == b.Size && a.Type == b.Type
}

// TestReadCutEBRChain checks an EBR chain whose image ends before its
// second EBR: the chain is listed to there, and a problem says where its
// link points.
func TestReadCutEBRChain(t *testing.T) {
	t.Parallel()
	disk, whole := cutDisk(t, "ebr")
	cut := whole.Partitions[1].Start - 64*512 // before the second EBR
	tab, err := readAs("ebr", disk[:cut])
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Partitions) != 1 || tab.SectorSize != 512 || !strings.Contains(strings.Join(tab.Problems, "; "), "past the image's end") {
		t.Errorf("%d-byte sectors, partitions %+v, problems %q", tab.SectorSize, tab.Partitions, tab.Problems)
	}
}

// TestReadSmallCutTables checks the hand-made cut tables of the fuzz
// seeds: a GPT entry and an MBR record that run past the disk are listed
// with a problem, as blkid and mmls list them.
func TestReadSmallCutTables(t *testing.T) {
	t.Parallel()
	for name, tc := range cutSeeds() {
		tab, err := ReadTable(bytes.NewReader(tc.disk), int64(len(tc.disk)))
		if err != nil || len(tab.Partitions) != 1 || !strings.Contains(strings.Join(tab.Problems, "; "), tc.problem) {
			t.Errorf("%s: %+v, %v; want one partition and the problem %q", name, tab, err, tc.problem)
		}
	}
}

// cutSeeds are small tables whose partition runs past the disk's end, by
// the name of their seed in testdata/fuzz.
func cutSeeds() map[string]struct {
	disk    []byte
	problem string
} {
	var m mbrRecord
	r := m.partitionRecord(1)
	r.osType()[0] = 0xa5
	r.startingLBA()[0] = 1
	copy(r.sizeInLBA(), []byte{0xe8, 0x03}) // 1000
	copy(m.signature(), []byte{0x55, 0xaa})
	return map[string]struct {
		disk    []byte
		problem string
	}{
		"gpt-entry-past-end": {smallGPT(4, 3, 1000), "gpt partition 1 (bytes 1536 to 512512) ends past the image's end (4096 bytes)"},
		"mbr-past-end":       {m[:], "mbr partition 2 (bytes 512 to 512512) lies past the image's end (512 bytes)"},
	}
}
