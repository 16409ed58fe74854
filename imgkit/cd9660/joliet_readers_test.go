package cd9660

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// These tests read Joliet images of the extents tree back with bsdtar,
// xorriso, 7z, isoinfo and iso-info: every regular file must come back
// with its size and bytes (iso-info: its size and an extent of its own), and a symbolic link either as a
// link to its target (Rock Ridge) or as a file holding its target. makefs
// gives a symlink no sector (its extent is the next file's), which these
// readers take, without Rock Ridge or reading the Joliet records, as the
// next file's bytes or, in bsdtar, as a hard link of that file; Joliet
// images give each link a sector of its own (linkContents).

// jolietReaderOptions are the -o items of the images the readers read.
var jolietReaderOptions = [][]string{{"joliet"}, {"joliet", "rockridge"}, {"joliet", "isolevel=1"}}

// readJoliet builds the extents tree and, for each set of
// jolietReaderOptions, an image, which read turns into the files a reader
// shows (extracted under a directory, or by path from a listing); it
// checks them against the source.
func readJoliet(t *testing.T, read func(t *testing.T, img string, rr bool) map[string]readEntry) {
	t.Helper()
	dir := makeTree(t, "extents")
	src := sourceEntries(t, dir)
	for _, opts := range jolietReaderOptions {
		t.Run(strings.Join(opts, ","), func(t *testing.T) {
			t.Parallel()
			rr := strings.Contains(strings.Join(opts, ","), "rockridge")
			checkReadEntries(t, src, read(t, writeImage(t, dir, opts...), rr))
		})
	}
}

// readEntry is what a reader showed of one path: a file's size and bytes
// (data nil when the reader lists sizes only), or a link's target.
type readEntry struct {
	size int64
	data []byte
	link string
	isLn bool
	lsn  int64 // the extent a listing shows; 0 when not shown
}

// checkReadEntries compares what a reader showed with the source: every
// regular file with its size and bytes; a symlink as a link to its target
// or as a file whose bytes are the target; a device or fifo, when shown
// as a file, empty; and, where a listing shows extents, no two entries
// with contents at one extent unless they are names of one file.
func checkReadEntries(t *testing.T, src map[string]srcEntry, got map[string]readEntry) {
	t.Helper()
	byExtent := map[int64]string{}
	for p, g := range got {
		if g.lsn == 0 || g.size == 0 {
			continue
		}
		if q, ok := byExtent[g.lsn]; ok && !(src[p].mode.IsRegular() && src[q].mode.IsRegular() && bytes.Equal(src[p].data, src[q].data)) {
			t.Errorf("%s and %s share the extent at sector %d", p, q, g.lsn)
		}
		byExtent[g.lsn] = p
	}
	for p, e := range src {
		g, ok := got[p]
		switch {
		case e.mode.IsDir():
			continue
		case !ok:
			t.Errorf("%s: missing", p)
		case e.mode.IsRegular():
			if g.isLn || g.size != int64(len(e.data)) || g.data != nil && !bytes.Equal(g.data, e.data) {
				t.Errorf("%s: read as %d bytes %q..., want %d bytes %q...", p, g.size, head(g.data), len(e.data), head(e.data))
			}
		case e.mode&fs.ModeSymlink != 0:
			if g.isLn && g.link != e.link || !g.isLn && (g.size != int64(len(e.link)) || g.data != nil && string(g.data) != e.link) {
				t.Errorf("%s: read as a link to %q or %d bytes %q..., want a link to or a file holding %q", p, g.link, g.size, head(g.data), e.link)
			}
		default:
			if !g.isLn && g.size != 0 {
				t.Errorf("%s: a special file read as %d bytes", p, g.size)
			}
		}
	}
}

// head is the start of b, for messages.
func head(b []byte) []byte { return b[:min(len(b), 16)] }

// extracted lists what a reader extracted under dir, by slash path.
func extracted(t *testing.T, dir string) map[string]readEntry {
	t.Helper()
	got := map[string]readEntry{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.Type()&fs.ModeSymlink != 0 {
			l, err := os.Readlink(p)
			got[rel] = readEntry{link: l, isLn: true}
			return err
		}
		if !d.Type().IsRegular() {
			got[rel] = readEntry{}
			return nil
		}
		b, err := os.ReadFile(p)
		got[rel] = readEntry{size: int64(len(b)), data: b}
		return err
	})
	must(t, err)
	return got
}

// TestJolietFilesBsdtar extracts the images with bsdtar.
func TestJolietFilesBsdtar(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "bsdtar")
	readJoliet(t, func(t *testing.T, img string, _ bool) map[string]readEntry {
		out := t.TempDir()
		run(t, "bsdtar", "-xf", img, "-C", out)
		return extracted(t, out)
	})
}

// TestJolietFiles7z extracts the images with 7z, which reads the Joliet
// records.
func TestJolietFiles7z(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "7z")
	readJoliet(t, func(t *testing.T, img string, _ bool) map[string]readEntry {
		out := t.TempDir()
		run(t, "7z", "x", "-y", "-o"+out, img)
		return extracted(t, out)
	})
}

// TestJolietFilesXorriso extracts the images with xorriso (osirrox),
// which reads Rock Ridge where there is some, else the Joliet records.
// Devices and fifos, which it would make as such, are left out.
func TestJolietFilesXorriso(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "xorriso")
	readJoliet(t, func(t *testing.T, img string, _ bool) map[string]readEntry {
		out := filepath.Join(t.TempDir(), "x")
		run(t, "xorriso", "-osirrox", "on", "-indev", img, "-rm", "/e-fifo", "/g-tty", "--", "-extract", "/", out, "-rollback_end")
		got := extracted(t, out)
		got["e-fifo"], got["g-tty"] = readEntry{}, readEntry{}
		return got
	})
}

// isoinfoDir and isoinfoFile are a directory header and a file (or link)
// line of isoinfo -l.
var (
	isoinfoDir  = regexp.MustCompile(`^Directory listing of (/.*)$`)
	isoinfoFile = regexp.MustCompile(`^([-lpcbf])\S{9}\s+\d+\s+\d+\s+\d+\s+(\d+) .*\[\s*(\d+) \d+\]  (.+?)(?: -> (.*)| )$`)
)

// TestJolietFilesIsoinfo lists the images with isoinfo -l (-J for the
// Joliet names, -R for Rock Ridge's) and reads every file with -x.
func TestJolietFilesIsoinfo(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "isoinfo")
	readJoliet(t, func(t *testing.T, img string, rr bool) map[string]readEntry {
		names := "-J"
		if rr {
			names = "-R"
		}
		got := map[string]readEntry{}
		dir := ""
		for _, line := range strings.Split(run(t, "isoinfo", names, "-l", "-i", img), "\n") {
			if m := isoinfoDir.FindStringSubmatch(line); m != nil {
				dir = strings.TrimSuffix(m[1], "/") + "/"
				continue
			}
			m := isoinfoFile.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			p := strings.TrimPrefix(dir+m[4], "/")
			lsn, _ := strconv.ParseInt(m[3], 10, 64)
			switch m[1] {
			case "l":
				got[p] = readEntry{link: m[5], isLn: true}
			case "-":
				size, _ := strconv.ParseInt(m[2], 10, 64)
				data := []byte(run(t, "isoinfo", names, "-i", img, "-x", "/"+p))
				got[p] = readEntry{size: size, data: data, lsn: lsn}
			default:
				got[p] = readEntry{}
			}
		}
		return got
	})
}

// isoInfoDir and isoInfoFile are a directory header and a file line of
// iso-info -l.
var (
	isoInfoDir  = regexp.MustCompile(`^(/.*):$`)
	isoInfoFile = regexp.MustCompile(`^  - \[LSN\s+(\d+)\]\s+(\d+) .{20}  (.+)$`)
)

// TestJolietFilesIsoInfo lists the images with iso-info -l (libcdio),
// which reads the Joliet records: the sizes and extents. (iso-read, its
// extractor, finds files by their ISO 9660 identifiers only.)
func TestJolietFilesIsoInfo(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "iso-info")
	readJoliet(t, func(t *testing.T, img string, _ bool) map[string]readEntry {
		got := map[string]readEntry{}
		dir := ""
		for _, line := range strings.Split(run(t, "iso-info", "-l", "-i", img), "\n") {
			if m := isoInfoDir.FindStringSubmatch(line); m != nil {
				dir = strings.TrimSuffix(m[1], "/") + "/"
				continue
			}
			if m := isoInfoFile.FindStringSubmatch(line); m != nil {
				lsn, _ := strconv.ParseInt(m[1], 10, 64)
				size, _ := strconv.ParseInt(m[2], 10, 64)
				got[strings.TrimPrefix(dir+m[3], "/")] = readEntry{size: size, lsn: lsn}
			}
		}
		return got
	})
}
