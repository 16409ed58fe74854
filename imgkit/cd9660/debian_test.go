package cd9660

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// These tests compare compat=debian images with Debian's makefs -t
// cd9660 (the makefs package, NetBSD's code of 2019). Debian's makefs
// applies -T to no time of a cd9660 image, so every case runs under
// several time rules (debianTimes): the source files get modification
// time fbsdStamp and an access time in the future, which reading them
// does not move (relatime), and -T is that time, another, or absent, with
// or without an mtree spec that gives every entry time=. Masked: the
// volume descriptor's creation, modification and effective dates, and the
// dates of RR_MOVED's and the relocation placeholders' records, which
// Debian's makefs takes from the clock, and, with a spec under Rock
// Ridge, the change times of the TF entries, which Debian's makefs takes
// from the clock where fixturegen writes the spec's time (checked).

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

// Times of the comparison: debianOtherStamp is a -T other than the files'
// modification time (fbsdStamp), debianSpecStamp the time= of the spec.
const (
	debianOtherStamp = 1600000000
	debianSpecStamp  = 1500000000
)

// debianTimes are the time rules every case is compared under: -T (0 for
// none) and whether an mtree spec gives every entry time=debianSpecStamp.
var debianTimes = []struct {
	name  string
	stamp int64
	spec  bool
}{
	{"T=mtime", fbsdStamp, false},
	{"T=other", debianOtherStamp, false},
	{"noT", 0, false},
	{"spec", 0, true},
	{"spec,T=other", debianOtherStamp, true},
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

// TestDebianIdentity compares each case of debianCases with Debian's
// makefs under every time rule of debianTimes with FIXTUREGEN_LONG=1; by
// default under one of them, in turn, so that each rule still meets
// several trees, with Rock Ridge and without.
func TestDebianIdentity(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "makefs")
	for k, c := range debianCases {
		if !tooltest.ShortSample(k, 3) {
			continue // -short (CI's race run): every third case; the run without -short, all
		}
		for _, tr := range tooltest.Pick(k, debianTimes) {
			t.Run(c.tree+"/"+strings.Join(c.opts, ",")+"/"+tr.name, func(t *testing.T) {
				t.Parallel()
				dir := makeTree(t, c.tree)
				tooltest.PinTimes(t, dir, time.Unix(fbsdStamp, 0))
				spec := ""
				if tr.spec {
					spec = writeTimeSpec(t, dir, debianSpecStamp)
				}
				want := debianImage(t, dir, spec, tr.stamp, c.opts)
				o := debianOptions(t, tr.stamp, append(append(c.opts, c.extra...), "compat=debian"))
				got, v := debianOurImage(t, dir, spec, o)
				for _, img := range [][]byte{want, got} {
					maskVolumeDates(img)
					maskClockRecords(v, img)
				}
				if tr.spec && o.RockRidge {
					checkTFChangeTimes(t, got, time.Unix(debianSpecStamp, 0))
					maskTFChangeTimes(want)
					maskTFChangeTimes(got)
				}
				if d := explainDiff(v, want, got); d != "" {
					t.Errorf("Debian's makefs and fixturegen differ: %s", d)
				}
			})
		}
	}
}

// MakefsArgs returns the makefs flags -t cd9660, -T stamp (when not 0),
// -F spec (when not "") and -o for each item, as the comparisons with
// Debian's makefs give them to both tools.
func MakefsArgs(spec string, stamp int64, items []string) []string {
	args := []string{"-t", "cd9660"}
	if stamp != 0 {
		args = append(args, "-T", fmt.Sprint(stamp))
	}
	if spec != "" {
		args = append(args, "-F", spec)
	}
	for _, it := range items {
		args = append(args, "-o", it)
	}
	return args
}

// debianImage runs Debian's makefs -t cd9660 on dir with the spec (when
// not ""), -T stamp (when not 0) and the -o items, and returns the image.
func debianImage(t *testing.T, dir, spec string, stamp int64, items []string) []byte {
	t.Helper()
	img := filepath.Join(t.TempDir(), "debian.iso")
	args := MakefsArgs(spec, stamp, items)
	tooltest.RunSorted(t, "", "makefs", append(args, img, dir)...)
	b, err := os.ReadFile(img)
	must(t, err)
	return b
}

// debianOptions turns -o items into the writer's Options, with the -T
// time stamp (none when 0).
func debianOptions(t *testing.T, stamp int64, items []string) *Options {
	t.Helper()
	o := fbsdOptions(t, items)
	o.Timestamp = time.Time{}
	if stamp != 0 {
		o.Timestamp = time.Unix(stamp, 0).UTC()
	}
	return o
}

// debianOurImage builds the image of dir, with the mtree spec applied
// when spec is not "", as the makefs command line builds it: the tree
// read with the rule of o.SourceTimes, then given to WriteFile. It returns
// the image and its layout.
func debianOurImage(t *testing.T, dir, spec string, o *Options) ([]byte, *volume) {
	t.Helper()
	var src fstree.Source = fstree.Dir(dir)
	if spec != "" {
		ts, clamp := o.SourceTimes()
		topts := &fstree.Options{Timestamp: ts, ClampTimes: clamp}
		tree, err := fstree.WalkDir(dir, topts)
		must(t, err)
		f, err := os.Open(spec)
		must(t, err)
		defer f.Close()
		s, err := fstree.ReadSpec(f, spec)
		must(t, err)
		src, err = fstree.ApplySpec(tree, s, false, topts)
		must(t, err)
	}
	img := filepath.Join(t.TempDir(), "fixturegen.iso")
	must(t, WriteFile(img, src, o))
	b, err := os.ReadFile(img)
	must(t, err)
	v, err := prepare(src, o)
	must(t, err)
	return b, v
}

// writeTimeSpec writes an mtree spec naming every entry under dir with
// its type and time=stamp, and returns its path.
func writeTimeSpec(t *testing.T, dir string, stamp int64) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "/set time=%d.0\n", stamp)
	depth := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		n := 0
		if rel != "." {
			n = strings.Count(rel, string(filepath.Separator)) + 1
		}
		for ; depth >= n && depth > 0 && rel != "."; depth-- {
			b.WriteString("..\n")
		}
		name := "."
		if rel != "." {
			name = mtreeName(d.Name())
		}
		fmt.Fprintf(&b, "%s type=%s\n", name, mtreeType(d.Type()))
		if d.IsDir() {
			depth = n
		}
		return nil
	})
	must(t, err)
	path := filepath.Join(t.TempDir(), "times.mtree")
	must(t, os.WriteFile(path, []byte(b.String()), 0o644))
	return path
}

// mtreeName encodes a name as mtree(5) takes it: every byte other than a
// letter, digit or one of "._-+,=!" as a backslash and three octal digits.
func mtreeName(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._-+,=!", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "\\%03o", c)
		}
	}
	return b.String()
}

// mtreeType is the mtree(5) type keyword of a directory entry's type.
func mtreeType(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "dir"
	case m&fs.ModeSymlink != 0:
		return "link"
	case m&fs.ModeNamedPipe != 0:
		return "fifo"
	case m&fs.ModeCharDevice != 0:
		return "char"
	case m&fs.ModeDevice != 0:
		return "block"
	}
	return "file"
}

// debianTFs returns the offsets of the TF entries of a compat=debian Rock
// Ridge image: "TF", length 25, version 1, and the flags of modification,
// access and change time. The test trees' file data never holds them.
func debianTFs(img []byte) []int {
	var offs []int
	for i := 0; i+debianTFLen <= len(img); i++ {
		if img[i] == 'T' && img[i+1] == 'F' && img[i+2] == debianTFLen && img[i+3] == 1 && img[i+4] == 0x0e {
			offs = append(offs, i)
		}
	}
	return offs
}

// checkTFChangeTimes fails the test unless every TF entry of img has the
// change time want (to the second; Debian's entries cut off its offset).
func checkTFChangeTimes(t *testing.T, img []byte, want time.Time) {
	t.Helper()
	offs := debianTFs(img)
	if len(offs) == 0 {
		t.Fatal("no TF entry found")
	}
	w := want.UTC()
	for _, off := range offs {
		c := img[off+5+14 : off+5+20]
		got := time.Date(1900+int(c[0]), time.Month(c[1]), int(c[2]), int(c[3]), int(c[4]), int(c[5]), 0, time.UTC)
		if !got.Equal(w) {
			t.Errorf("TF at byte %#x: change time %v, want the spec's time %v", off, got, w)
		}
	}
}

// maskTFChangeTimes zeroes the change time of every TF entry of img.
func maskTFChangeTimes(img []byte) {
	for _, off := range debianTFs(img) {
		clear(img[off+5+14 : off+5+20])
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
