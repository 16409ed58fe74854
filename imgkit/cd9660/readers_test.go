package cd9660

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// These tests read fixturegen's images with independent readers: bsdtar
// (libarchive) extracts them and the tree must equal the source, xorriso
// (libisofs), isoinfo (genisoimage), iso-info (libcdio), 7z and fls
// (sleuthkit) list them and must list every file. The trees include
// what makefs writes and some reader rejects (deep trees, a 185-character
// name, a 264-character symlink target), where fixturegen deviates.

// readerTrees are the trees the readers check, each written with
// rockridge and joliet.
var readerTrees = []string{"basic", "links", "longlink", "longname", "many", "deep15"}

// readerImage writes the tree with the -o items and returns the source
// directory and the image's path.
func readerImage(t *testing.T, tree string, items ...string) (string, string) {
	t.Helper()
	dir := makeTree(t, tree)
	img := filepath.Join(t.TempDir(), tree+".iso")
	o := fbsdOptions(t, items)
	if err := WriteFile(img, fstree.Dir(dir), o); err != nil {
		t.Fatal(err)
	}
	return dir, img
}

// run runs a reader and returns its standard output; it fails the test
// when the reader fails.
func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(tooltest.Need(t, name), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out.String(), errb.String())
	}
	if strings.Contains(errb.String(), "rror") || strings.Contains(errb.String(), "WARN") {
		t.Errorf("%s %s complains:\n%s", name, strings.Join(args, " "), errb.String())
	}
	return out.String()
}

// srcEntry is what the readers must show of one entry of the source.
type srcEntry struct {
	mode fs.FileMode
	link string
	data []byte
	rdev uint64
}

// sourceEntries lists the source tree by slash-separated path.
func sourceEntries(t *testing.T, root string) map[string]srcEntry {
	t.Helper()
	out := map[string]srcEntry{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		e := srcEntry{mode: fi.Mode()}
		if rdev, ok := statRdev(fi); ok {
			e.rdev = rdev
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			e.link, err = os.Readlink(p)
		case fi.Mode().IsRegular():
			e.data, err = os.ReadFile(p)
		}
		out[filepath.ToSlash(rel)] = e
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReadersBsdtar extracts every reader tree with bsdtar and compares
// names, types, permissions, symlink targets, device numbers and
// contents with the source.
func TestReadersBsdtar(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "bsdtar")
	for _, tree := range readerTrees {
		t.Run(tree, func(t *testing.T) {
			t.Parallel()
			dir, img := readerImage(t, tree, "rockridge", "joliet")
			out := filepath.Join(t.TempDir(), "x")
			must(t, os.Mkdir(out, 0o755))
			run(t, "bsdtar", "-xpf", img, "-C", out)
			want, got := sourceEntries(t, dir), sourceEntries(t, out)
			compareEntries(t, want, got)
		})
	}
}

// compareEntries reports every difference between two listings.
func compareEntries(t *testing.T, want, got map[string]srcEntry) {
	t.Helper()
	for p, w := range want {
		g, ok := got[p]
		switch {
		case !ok:
			t.Errorf("%s: missing", p)
		case g.mode != w.mode:
			t.Errorf("%s: mode %v, want %v", p, g.mode, w.mode)
		case g.link != w.link:
			t.Errorf("%s: symlink to %q, want %q", p, g.link, w.link)
		case !bytes.Equal(g.data, w.data):
			t.Errorf("%s: contents differ (%d bytes, want %d)", p, len(g.data), len(w.data))
		case w.mode&fs.ModeDevice != 0 && g.rdev != w.rdev:
			t.Errorf("%s: device %#x, want %#x", p, g.rdev, w.rdev)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: not in the source", p)
		}
	}
}

// xorrisoLine is one line of xorriso's -exec lsdl: mode, the path in
// quotes, and a symlink's target.
var xorrisoLine = regexp.MustCompile(`^(\S+)\s.*?'(/[^']*)'(?: -> '([^']*)')?$`)

// TestReadersXorriso lists every reader tree with xorriso: every source
// path with its mode string and symlink target, nothing more (no
// .rr_moved).
func TestReadersXorriso(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "xorriso")
	for _, tree := range readerTrees {
		t.Run(tree, func(t *testing.T) {
			t.Parallel()
			dir, img := readerImage(t, tree, "rockridge", "joliet")
			out := run(t, "xorriso", "-abort_on", "NEVER", "-return_with", "WARNING", "32",
				"-indev", img, "-find", "/", "-exec", "lsdl")
			got := map[string]srcEntry{}
			for _, line := range strings.Split(out, "\n") {
				m := xorrisoLine.FindStringSubmatch(line)
				if m == nil || m[2] == "/" {
					continue
				}
				got[m[2][1:]] = srcEntry{mode: parseModeString(m[1]), link: m[3]}
			}
			want := sourceEntries(t, dir)
			for p, w := range want {
				want[p] = srcEntry{mode: w.mode, link: w.link}
			}
			compareEntries(t, want, got)
		})
	}
}

// TestReadersXorrisoJoliet lists the Joliet hierarchy of every reader
// tree with xorriso (Rock Ridge off): every source path, its names cut to
// 64 characters, and the same directories.
func TestReadersXorrisoJoliet(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "xorriso")
	for _, tree := range readerTrees {
		t.Run(tree, func(t *testing.T) {
			t.Parallel()
			dir, img := readerImage(t, tree, "joliet", "allow-deep-trees")
			out := run(t, "xorriso", "-abort_on", "NEVER", "-return_with", "WARNING", "32", "-rockridge", "off",
				"-indev", img, "-find", "/", "-exec", "lsdl")
			got := map[string]srcEntry{}
			for _, line := range strings.Split(out, "\n") {
				if m := xorrisoLine.FindStringSubmatch(line); m != nil && m[2] != "/" {
					got[m[2][1:]] = srcEntry{mode: parseModeString(m[1]) & fs.ModeDir}
				}
			}
			want := map[string]srcEntry{}
			for p, e := range sourceEntries(t, dir) {
				parts := strings.Split(p, "/")
				for i, n := range parts {
					parts[i] = listedName(lister{joliet: true}, n)
				}
				want[strings.Join(parts, "/")] = srcEntry{mode: e.mode & fs.ModeDir}
			}
			compareEntries(t, want, got)
		})
	}
}

// parseModeString reads an ls(1) mode string such as "drwxr-xr-x".
func parseModeString(s string) fs.FileMode {
	var m fs.FileMode
	switch s[0] {
	case 'd':
		m = fs.ModeDir
	case 'l':
		m = fs.ModeSymlink
	case 'p':
		m = fs.ModeNamedPipe
	case 'c':
		m = fs.ModeDevice | fs.ModeCharDevice
	case 'b':
		m = fs.ModeDevice
	case 's':
		m = fs.ModeSocket
	}
	for i, c := range s[1:10] {
		if c != '-' {
			m |= 1 << (8 - i)
		}
	}
	return m
}

// lister is a reader that lists an image: which entries of the source it
// must show, and how it spells their names.
type lister struct {
	name   string
	args   func(img string) []string
	joliet bool                         // shows Joliet names, cut to 64 characters
	show   func(e srcEntry, n int) bool // must show this entry (n: names of its file)
	latin1 bool                         // prints names in ISO 8859-1
}

// everything is the show of a lister that shows every entry.
func everything(srcEntry, int) bool { return true }

// listers are the readers TestReadersListings runs. 7z and iso-info read
// Joliet before Rock Ridge; fls lists a file only when it has contents of
// its own (it numbers files by extent).
var listers = []lister{
	{"isoinfo", func(img string) []string { return []string{"-R", "-l", "-i", img} }, false, everything, false},
	{"isoinfo", func(img string) []string { return []string{"-J", "-j", "iso8859-1", "-l", "-i", img} }, true, everything, true},
	{"iso-info", func(img string) []string { return []string{"-l", img} }, true, everything, false},
	{"7z", func(img string) []string { return []string{"l", img} }, true, everything, false},
	{"fls", func(img string) []string { return []string{"-r", "-f", "iso9660", img} }, true,
		func(e srcEntry, n int) bool { return e.mode.IsDir() || e.mode.IsRegular() && len(e.data) > 0 && n == 1 }, false},
}

// TestReadersListings lists every reader tree with isoinfo (Rock Ridge,
// then Joliet), iso-info, 7z and fls, and looks for the base name of
// every entry of the source each must show.
func TestReadersListings(t *testing.T) {
	t.Parallel()
	for _, tree := range readerTrees {
		t.Run(tree, func(t *testing.T) {
			t.Parallel()
			dir, img := readerImage(t, tree, "rockridge", "joliet")
			src := sourceEntries(t, dir)
			contents := map[string]int{}
			for _, e := range src {
				contents[string(e.data)]++
			}
			for _, l := range listers {
				out := run(t, l.name, l.args(img)...)
				for p, e := range src {
					if !l.show(e, contents[string(e.data)]) {
						continue
					}
					if n := listedName(l, filepath.Base(p)); !strings.Contains(out, n) {
						t.Errorf("%s %s does not list %q", l.name, strings.Join(l.args(img), " "), n)
					}
				}
			}
		})
	}
}

// listedName is how the lister l spells the name n.
func listedName(l lister, n string) string {
	r := []rune(n)
	if l.joliet {
		r = r[:min(len(r), jolietMaxName)]
	}
	if !l.latin1 {
		return string(r)
	}
	b := make([]byte, len(r))
	for i, c := range r {
		b[i] = byte(c)
	}
	return string(b)
}

// TestReadersRockRidgeOnly lists Rock Ridge images without Joliet with
// iso-info, which then shows the Rock Ridge names in full. (It does not
// follow CE entries, so the names of the longname tree, in continuation
// areas, show as ISO 9660 identifiers.)
func TestReadersRockRidgeOnly(t *testing.T) {
	t.Parallel()
	for _, tree := range []string{"basic", "links", "deep15"} {
		t.Run(tree, func(t *testing.T) {
			t.Parallel()
			dir, img := readerImage(t, tree, "rockridge")
			out := run(t, "iso-info", "-l", img)
			for p := range sourceEntries(t, dir) {
				if !strings.Contains(out, filepath.Base(p)) {
					t.Errorf("iso-info -l does not list %q", filepath.Base(p))
				}
			}
		})
	}
}

// TestSourceDateEpoch checks that with ClampTimes every date of the
// volume, its descriptors' included, is at most the bound, and that the
// image does not change when the files get newer.
func TestSourceDateEpoch(t *testing.T) {
	t.Parallel()
	dir := makeTree(t, "links")
	bound := time.Unix(1600000000, 0).UTC()
	o := &Options{Timestamp: bound, ClampTimes: true, RockRidge: true, Joliet: true}
	a, err := Build(fstree.Dir(dir), o)
	must(t, err)
	must(t, os.Chtimes(filepath.Join(dir, "target.txt"), time.Now(), time.Now()))
	b, err := Build(fstree.Dir(dir), o)
	must(t, err)
	if !bytes.Equal(a, b) {
		t.Error("the image changed when a file's times moved past the bound")
	}
	vd := (*volumeDescriptor)(a[16*SectorSize : 17*SectorSize])
	if got := string(vd.volumeCreationDateAndTime()[:14]); got != "20200913122640" {
		t.Errorf("Volume Creation Date and Time %s, want the bound 20200913122640", got)
	}
}

// TestReadersArchimedes lists a tree with RISC OS names, written with
// archimedes under Rock Ridge, with xorriso and isoinfo: every name and
// mode comes back, the ST entry before each ARCHIMEDES block ending the
// SUSP entries. (bsdtar is left out: libarchive turns Rock Ridge off for
// the rest of the image at the first ST entry.)
func TestReadersArchimedes(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "xorriso")
	dir, img := readerImage(t, "riscos", "rockridge", "archimedes")
	out := run(t, "xorriso", "-abort_on", "NEVER", "-return_with", "WARNING", "32",
		"-indev", img, "-find", "/", "-exec", "lsdl")
	got := map[string]srcEntry{}
	for _, line := range strings.Split(out, "\n") {
		if m := xorrisoLine.FindStringSubmatch(line); m != nil && m[2] != "/" {
			got[m[2][1:]] = srcEntry{mode: parseModeString(m[1])}
		}
	}
	want := map[string]srcEntry{}
	for p, e := range sourceEntries(t, dir) {
		want[p] = srcEntry{mode: e.mode}
	}
	compareEntries(t, want, got)
	listing := run(t, "isoinfo", "-R", "-l", "-i", img)
	for p := range want {
		if !strings.Contains(listing, filepath.Base(p)) {
			t.Errorf("isoinfo -R does not list %q", filepath.Base(p))
		}
	}
}
