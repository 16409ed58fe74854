package cd9660

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// These tests read the link targets of links_test.go back with bsdtar,
// xorriso and isoinfo -R, and check that bsdtar takes images whose last
// record with an extent is a link.

// linkReaderOptions are the -o items of the images the readers read.
var linkReaderOptions = [][]string{{"rockridge"}, {"rockridge", "joliet"}}

// checkTargets compares the targets a reader gave, by link name, with
// the test targets.
func checkTargets(t *testing.T, reader string, targets []string, got map[string]string) {
	t.Helper()
	for i, target := range targets {
		name := fmt.Sprintf("l%03d", i)
		if g, ok := got[name]; !ok {
			t.Errorf("%s: %s missing", reader, name)
		} else if want := cleanTarget(target); g != want && (reader != "isoinfo -R" || want != "/" || g != "") {
			t.Errorf("%s: %s:\n got %q\nwant %q", reader, name, g, want)
		}
	}
}

// readLinks builds the tree of test links and, for each set of
// linkReaderOptions, an image, whose links read returns by name; it
// checks them against the targets.
func readLinks(t *testing.T, reader string, read func(t *testing.T, img string, targets []string) map[string]string) {
	t.Helper()
	targets := linkTargets()
	dir := linkTree(t, targets)
	for _, opts := range linkReaderOptions {
		t.Run(strings.Join(opts, ","), func(t *testing.T) {
			t.Parallel()
			checkTargets(t, reader, targets, read(t, writeImage(t, dir, opts...), targets))
		})
	}
}

// TestLinkTargetsBsdtar extracts the links with bsdtar.
func TestLinkTargetsBsdtar(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "bsdtar")
	readLinks(t, "bsdtar", func(t *testing.T, img string, targets []string) map[string]string {
		out := filepath.Join(t.TempDir(), "x")
		must(t, os.Mkdir(out, 0o755))
		run(t, "bsdtar", "-xpf", img, "-C", out)
		got := map[string]string{}
		for i := range targets {
			name := fmt.Sprintf("l%03d", i)
			if l, err := os.Readlink(filepath.Join(out, name)); err == nil {
				got[name] = l
			}
		}
		return got
	})
}

// TestLinkTargetsXorriso lists the links with xorriso.
func TestLinkTargetsXorriso(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "xorriso")
	readLinks(t, "xorriso", func(t *testing.T, img string, _ []string) map[string]string {
		out := run(t, "xorriso", "-abort_on", "NEVER", "-return_with", "WARNING", "32",
			"-indev", img, "-find", "/", "-exec", "lsdl")
		got := map[string]string{}
		for _, line := range strings.Split(out, "\n") {
			if m := xorrisoLine.FindStringSubmatch(line); m != nil && m[3] != "" {
				got[m[2][1:]] = m[3]
			}
		}
		return got
	})
}

// isoinfoLink is a symbolic link in isoinfo -R -l's listing: its name
// and target.
var isoinfoLink = regexp.MustCompile(`\s(l\d{3}) -> (.*)$`)

// TestLinkTargetsIsoinfo lists the links with isoinfo -R. isoinfo shows
// a link to "/" (one root component) with an empty target, in xorriso's
// images as in these; that one is let pass.
func TestLinkTargetsIsoinfo(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "isoinfo")
	readLinks(t, "isoinfo -R", func(t *testing.T, img string, _ []string) map[string]string {
		out := run(t, "isoinfo", "-R", "-l", "-i", img)
		got := map[string]string{}
		for _, line := range strings.Split(out, "\n") {
			if m := isoinfoLink.FindStringSubmatch(line); m != nil {
				got[m[1]] = m[2]
			}
		}
		return got
	})
}

// TestLastLinkBsdtar lists, with bsdtar, images whose last record with
// an extent is a symbolic link with a long target, which bsdtar refused
// ("Invalid location of extent of file") when the link's extent was the
// end of the volume. (Without the trailing padding bsdtar does not take
// an image this small for ISO 9660 at all: it reads 48 KiB to decide.)
func TestLastLinkBsdtar(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "bsdtar")
	for _, targets := range [][]string{{longLinkTarget}, {"a", longLinkTarget}, {strings.Repeat("x/", 129) + "target"}} {
		dir := linkTree(t, targets)
		out := run(t, "bsdtar", "-tf", writeImage(t, dir, "rockridge"))
		if want := fmt.Sprintf("l%03d\n", len(targets)-1); !strings.Contains(out, want) {
			t.Errorf("bsdtar -tf lists %q, not %q", out, want)
		}
	}
}
