package cd9660

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// These tests compare compat=debian images with Debian's makefs -t
// cd9660 (the makefs package, NetBSD's code of 2019). Debian's makefs
// applies -T to no time of a cd9660 image, so the source files get their
// times beforehand: modification time fbsdStamp and an access time in
// the future, which reading them does not move (relatime); the change
// time is the files' own in both. Masked: the volume descriptor's
// creation, modification and effective dates, and the dates of RR_MOVED's
// and the relocation placeholders' records, which Debian's makefs takes
// from the clock.

// debianCases are the trees and -o options of the comparison; extra
// are given to the writer only.
var debianCases = []struct {
	tree  string
	opts  []string
	extra []string
}{
	{"basic", nil, nil},
	{"basic", []string{"isolevel=1"}, nil},
	{"basic", []string{"rockridge"}, nil},
	{"basic", []string{"rockridge", "isolevel=1", "label=DEB"}, nil},
	{"links", []string{"rockridge"}, nil},
	{"links", nil, nil},
	{"many", []string{"rockridge"}, nil},
	{"many", []string{"isolevel=1", "omit-trailing-period"}, nil},
	{"basic", []string{"allow-multidot", "applicationid=APP", "publisher=PUB", "preparer=PREP", "volumeid=VOLSET"}, nil},
	{"deep9", []string{"allow-deep-trees"}, nil},
	{"riscos", []string{"archimedes"}, nil},
	{"riscos", []string{"archimedes", "rockridge"}, nil},
	{"riscos", []string{"archimedes", "isolevel=1", "rockridge"}, nil},
	{"deep15", []string{"rockridge"}, []string{"relocate-deep-trees"}},
	{"deep9", []string{"rockridge"}, []string{"relocate-deep-trees"}},
}

// maskVolumeDates zeroes the dates of the primary volume descriptor that
// Debian's makefs takes from the clock.
func maskVolumeDates(img []byte) {
	vd := (*volumeDescriptor)(img[16*SectorSize : 17*SectorSize])
	for _, d := range []decDateTime{vd.volumeCreationDateAndTime(), vd.volumeModificationDateAndTime(),
		vd.volumeEffectiveDateAndTime()} {
		clear(d)
	}
}

func TestDebianIdentity(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "makefs")
	for _, c := range debianCases {
		t.Run(c.tree+"/"+strings.Join(c.opts, ","), func(t *testing.T) {
			t.Parallel()
			dir := makeTree(t, c.tree)
			tooltest.PinTimes(t, dir, time.Unix(fbsdStamp, 0))
			img := filepath.Join(t.TempDir(), "debian.iso")
			args := []string{"-t", "cd9660", "-T", "1700000000"}
			for _, it := range c.opts {
				args = append(args, "-o", it)
			}
			tooltest.RunSorted(t, "", "makefs", append(args, img, dir)...)
			want, err := os.ReadFile(img)
			must(t, err)
			got, v := ourImage(t, dir, append(append(c.opts, c.extra...), "compat=debian"))
			for _, img := range [][]byte{want, got} {
				maskVolumeDates(img)
				maskClockRecords(v, img)
			}
			if d := explainDiff(v, want, got); d != "" {
				t.Errorf("Debian's makefs and fixturegen differ: %s", d)
			}
		})
	}
}

// maskClockRecords zeroes the Recording Date and Time of the records
// Debian's makefs dates with the clock: RR_MOVED's (in the root, as its
// ".", and as ".." of the directories in it) and the relocation
// placeholders'. Their place is the same in both images when the rest
// is.
func maskClockRecords(v *volume, img []byte) {
	for _, d := range v.dirs {
		sector, cur := int64(d.extent), 0
		for _, c := range d.children {
			rl := c.recordLen(v.o.RockRidge)
			if rl+cur >= SectorSize {
				sector, cur = sector+1, 0
			}
			if s := recordSource(c); s == v.rrMoved || s.relocated != nil {
				off := sector*SectorSize + int64(cur)
				clear(dirRecord(img[off : off+int64(rl)]).recordingDateAndTime())
			}
			cur += rl
		}
	}
}
