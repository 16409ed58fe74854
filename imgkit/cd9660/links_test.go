package cd9660

import (
	"fmt"
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
