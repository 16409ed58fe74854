package cd9660

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// These tests keep symbolic links read right: a link's extent and Data
// Length stay within the volume, its target comes back from every reader
// however its SL entries are split, and its Joliet record agrees with its
// primary one.

// longLinkTarget is the target of 264 characters in components of three
// that made bsdtar refuse the image when the link came last.
var longLinkTarget = func() string {
	var b strings.Builder
	for i := range 64 {
		fmt.Fprintf(&b, "d%02d/", i)
	}
	return b.String() + "target.x"
}()

// linkTree makes a directory holding a symbolic link to each of targets,
// named l000, l001, ..., and returns it.
func linkTree(t *testing.T, targets []string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "src")
	must(t, os.Mkdir(dir, 0o755))
	for i, target := range targets {
		must(t, os.Symlink(target, filepath.Join(dir, fmt.Sprintf("l%03d", i))))
	}
	return dir
}

// writeImage writes dir with the -o items and returns the image's path.
func writeImage(t *testing.T, dir string, items ...string) string {
	t.Helper()
	img := filepath.Join(t.TempDir(), "links.iso")
	if err := WriteFile(img, fstree.Dir(dir), fbsdOptions(t, items)); err != nil {
		t.Fatal(err)
	}
	return img
}

// visitRecords calls fn with the path of every directory record of every
// hierarchy of the image (primary and supplementary volume descriptors)
// and with the descriptor's Volume Space Size.
func visitRecords(t *testing.T, img []byte, fn func(path string, r dirRecord, volume uint32)) {
	t.Helper()
	for s := 16; (s+1)*SectorSize <= len(img); s++ {
		vd := (*volumeDescriptor)(img[s*SectorSize : (s+1)*SectorSize])
		typ := vd.volumeDescriptorType()[0]
		if typ == vdTypeTerminator {
			return
		}
		if typ != 1 && typ != vdTypeSupplementary {
			continue
		}
		size, _ := get733(vd.volumeSpaceSize())
		visitDir(t, img, fmt.Sprintf("vd%d:", s), vd.rootDirectoryRecord(), func(p string, r dirRecord) { fn(p, r, size) })
	}
	t.Fatal("no Volume Descriptor Set Terminator")
}

// visitDir calls fn for every record of the directory of the record d
// and, recursively, of its subdirectories.
func visitDir(t *testing.T, img []byte, path string, d dirRecord, fn func(string, dirRecord)) {
	t.Helper()
	ext, _ := get733(d.locationOfExtent())
	n, _ := get733(d.dataLength())
	start, end := int(ext)*SectorSize, int(ext)*SectorSize+int(n)
	if end > len(img) {
		t.Fatalf("%s: directory extent %d+%d past the image", path, ext, n)
	}
	for off := start; off < end; {
		l := int(img[off])
		if l == 0 {
			off = (off/SectorSize + 1) * SectorSize
			continue
		}
		r := dirRecord(img[off : off+l])
		name := string(r.fileIdentifier())
		fn(path+"/"+name, r)
		if r.fileFlags()[0]&flagDirectory != 0 && name != "\x00" && name != "\x01" {
			visitDir(t, img, path+"/"+name, r, fn)
		}
		off += l
	}
}

// TestLinkExtentsInVolume checks libarchive's rule for every record of
// images whose last record with an extent is a symbolic link: the extent
// plus the sectors of the Data Length are within the Volume Space Size.
// When the continuation areas follow their directories nothing follows
// the tree, and the link's extent was the end of the volume.
func TestLinkExtentsInVolume(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"long":  {longLinkTarget},
		"short": {"a/b"},
		"huge":  {strings.Repeat("y/", 1100) + "z"},
	}
	for name, targets := range cases {
		for _, opts := range [][]string{{"rockridge"}, {"rockridge", "joliet"}, {"rockridge", "no-trailing-padding=0"}} {
			t.Run(name+"/"+strings.Join(opts, ","), func(t *testing.T) {
				t.Parallel()
				img, err := os.ReadFile(writeImage(t, linkTree(t, targets), opts...))
				must(t, err)
				visitRecords(t, img, func(p string, r dirRecord, volume uint32) {
					ext, _ := get733(r.locationOfExtent())
					n, _ := get733(r.dataLength())
					if end := int64(ext) + sectorsFor(int64(n)); ext > 0 && end > int64(volume) {
						t.Errorf("%s: extent %d and Data Length %d end at sector %d, past the Volume Space Size %d",
							p, ext, n, end, volume)
					}
				})
			})
		}
	}
}

// TestLinkExtentsAsMakefs checks that a link that is not last keeps
// makefs's extent, the next free sector, and its target's length as
// Data Length.
func TestLinkExtentsAsMakefs(t *testing.T) {
	t.Parallel()
	dir := linkTree(t, []string{longLinkTarget})
	must(t, os.WriteFile(filepath.Join(dir, "m.txt"), []byte("data"), 0o644))
	v, err := prepare(fstree.Dir(dir), fbsdOptions(t, []string{"rockridge"}))
	must(t, err)
	link, file := v.root.children[2], v.root.children[3]
	if link.extent != file.extent || link.sizeLen != uint32(len(longLinkTarget)) {
		t.Errorf("link at %d with Data Length %d, want %d (the file's extent) and %d",
			link.extent, link.sizeLen, file.extent, len(longLinkTarget))
	}
	if int64(file.extent)+1 != v.volumeSectors {
		t.Errorf("Volume Space Size %d, want %d: the link made the volume grow", v.volumeSectors, file.extent+1)
	}
}

// linkTargets are the targets the SL tests write: runs of one-character
// components of every length around the entry boundaries, ".", "..",
// absolute targets, trailing and doubled slashes, components of 255
// characters, and random ones.
func linkTargets() []string {
	out := []string{strings.Repeat("x/", 129) + "target", longLinkTarget,
		strings.Repeat("./", 130) + "q", strings.Repeat("../", 90) + "z", "/" + strings.Repeat("x/", 150) + "y",
		strings.Repeat("x/", 150), "/" + strings.Repeat("../", 100), strings.Repeat("a//", 100) + "b",
		strings.Repeat("c", 255) + "/" + strings.Repeat("d", 255) + "/" + strings.Repeat("e", 255),
		strings.Repeat("yy/", 100) + "..", "/", "../..", "."}
	for n := 80; n < 170; n++ {
		out = append(out, strings.Repeat("a/", n)+"b")
	}
	rng := rand.New(rand.NewPCG(13, 16))
	for range 80 {
		out = append(out, randomTarget(rng))
	}
	return out
}

// randomTarget is a target of up to 1000 bytes of random components.
func randomTarget(rng *rand.Rand) string {
	var b strings.Builder
	if rng.IntN(2) == 0 {
		b.WriteByte('/')
	}
	for want := 200 + rng.IntN(800); b.Len() < want; {
		switch k := rng.IntN(10); {
		case k == 0:
			b.WriteString(".")
		case k == 1:
			b.WriteString("..")
		case k < 6:
			b.WriteByte(byte('a' + rng.IntN(26)))
		default:
			for range 1 + rng.IntN(60) {
				b.WriteByte("abcdefghijklmnopqrstuvwxyz0123456789._-"[rng.IntN(39)])
			}
		}
		b.WriteByte('/')
		if rng.IntN(8) == 0 {
			b.WriteByte('/')
		}
	}
	s := b.String()
	if rng.IntN(4) > 0 {
		s = strings.TrimRight(s, "/")
	}
	if s == "" {
		return "."
	}
	return s
}

// cleanTarget is the target as the readers must give it back: empty
// components left out, as the writer leaves them out.
func cleanTarget(target string) string {
	var parts []string
	for _, c := range strings.Split(target, "/") {
		if c != "" {
			parts = append(parts, c)
		}
	}
	s := strings.Join(parts, "/")
	if strings.HasPrefix(target, "/") {
		s = "/" + s
	}
	return s
}

// slComponentRecords lists the component records of the SL entry e.
func slComponentRecords(t *testing.T, e suspEntry) []slComponent {
	t.Helper()
	var out []slComponent
	area := e.componentArea()
	for off := 0; off < len(area); {
		if off+2 > len(area) || off+2+int(area[off+1]) > len(area) {
			t.Fatalf("SL entry %x: component record at byte %#x runs past the entry", []byte(e), off)
		}
		out = append(out, slComponent{flags: area[off], content: string(area[off+2 : off+2+int(area[off+1])])})
		off += 2 + int(area[off+1])
	}
	return out
}

// joinNoSeparator joins SL entries as libarchive (bsdtar) does: no "/"
// between entries; within one, a "/" before every component but the
// first and those after a component that continues or the root.
func joinNoSeparator(t *testing.T, entries []suspEntry) string {
	t.Helper()
	var b strings.Builder
	for _, e := range entries {
		sep := ""
		for _, c := range slComponentRecords(t, e) {
			b.WriteString(sep)
			sep = "/"
			switch c.flags {
			case 0:
				b.WriteString(c.content)
			case slContinue:
				b.WriteString(c.content)
				sep = ""
			case slCurrent:
				b.WriteString(".")
			case slParent:
				b.WriteString("..")
			case slRoot:
				b.WriteString("/")
				sep = ""
			default:
				t.Fatalf("component flags %#x, which libarchive stops at", c.flags)
			}
		}
	}
	return b.String()
}

// joinSeparated joins SL entries as Linux and isoinfo do: a "/" after
// every component that does not continue and is not the root, unless it
// is the last component of the last entry.
func joinSeparated(t *testing.T, entries []suspEntry) string {
	t.Helper()
	var b strings.Builder
	for i, e := range entries {
		comps := slComponentRecords(t, e)
		for j, c := range comps {
			switch {
			case c.flags&slCurrent != 0:
				b.WriteString(".")
			case c.flags&slParent != 0:
				b.WriteString("..")
			case c.flags&slRoot != 0:
				b.WriteString("/")
			default:
				b.WriteString(c.content)
			}
			lastOfAll := i == len(entries)-1 && j == len(comps)-1
			if c.flags&(slContinue|slRoot) == 0 && !lastOfAll {
				b.WriteString("/")
			}
		}
	}
	return b.String()
}

// TestSLEntriesJoin checks that the SL entries of every test target read
// back as the target whether a reader joins entries with a "/" or
// without, that each entry fits a record, and that only the last lacks
// the SL flag CONTINUE.
func TestSLEntriesJoin(t *testing.T) {
	t.Parallel()
	for _, target := range linkTargets() {
		entries := slEntries(target)
		want := cleanTarget(target)
		for i, e := range entries {
			if len(e) > 5+slMax || (e.flags()[0] == slContinue) != (i < len(entries)-1) {
				t.Errorf("%q: entry %d of %d: %d bytes, flags %#x", target, i, len(entries), len(e), e.flags()[0])
			}
		}
		if got := joinNoSeparator(t, entries); got != want {
			t.Errorf("joined without separators:\n got %q\nwant %q", got, want)
		}
		if got := joinSeparated(t, entries); got != want {
			t.Errorf("joined with separators:\n got %q\nwant %q", got, want)
		}
	}
}

// TestLinkTargetsOwnReader reads every test target back with the
// package's reader, with and without Joliet.
func TestLinkTargetsOwnReader(t *testing.T) {
	t.Parallel()
	targets := linkTargets()
	dir := linkTree(t, targets)
	for _, opts := range [][]string{{"rockridge"}, {"rockridge", "joliet"}} {
		img, err := os.ReadFile(writeImage(t, dir, opts...))
		must(t, err)
		fsys, err := NewReader(bytes.NewReader(img), int64(len(img)))
		must(t, err)
		for i, target := range targets {
			got, err := fsys.ReadLink(fmt.Sprintf("l%03d", i))
			if want := cleanTarget(target); err != nil || got != want {
				t.Errorf("%v: l%03d: %q, %v; want %q", opts, i, got, err, want)
			}
		}
	}
}

// TestJolietLinkLength checks that a symbolic link's Joliet record has
// the Data Length of its primary record, its target's length as makefs
// writes it, with and without Rock Ridge.
func TestJolietLinkLength(t *testing.T) {
	t.Parallel()
	targets := []string{"a/b", longLinkTarget, "/usr/local/share/doc"}
	dir := linkTree(t, targets)
	must(t, os.WriteFile(filepath.Join(dir, "m.txt"), []byte("data"), 0o644))
	for _, opts := range [][]string{{"joliet"}, {"joliet", "rockridge"}} {
		img, err := os.ReadFile(writeImage(t, dir, opts...))
		must(t, err)
		lengths := map[string][]uint32{}
		visitRecords(t, img, func(p string, r dirRecord, _ uint32) {
			if r.fileFlags()[0]&flagDirectory != 0 {
				return
			}
			name := strings.ToLower(string(bytes.ReplaceAll(r.fileIdentifier(), []byte{0}, nil)))
			name = strings.TrimSuffix(strings.TrimSuffix(name, ";1"), ".")
			n, _ := get733(r.dataLength())
			lengths[name] = append(lengths[name], n)
		})
		for i, target := range append(targets, "data") {
			name := fmt.Sprintf("l%03d", i)
			if i == len(targets) {
				name = "m.txt"
			}
			want := uint32(len(target))
			if l := lengths[name]; len(l) != 2 || l[0] != want || l[1] != want {
				t.Errorf("%v: %s: Data Length %v in the primary and Joliet records, want %d in both", opts, name, l, want)
			}
		}
	}
}
