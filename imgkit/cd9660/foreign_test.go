package cd9660

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// libarchiveImage returns the image testdata/libarchive/name.iso.gz (see
// the README there for where each comes from).
func libarchiveImage(t *testing.T, name string) []byte {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "libarchive", name+".iso.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLibarchiveLinks reads the symbolic links of libarchive's Rock Ridge
// image, whose SL records put ROOT components after the first, as bsdtar,
// xorriso and isoinfo read them.
func TestLibarchiveLinks(t *testing.T) {
	t.Parallel()
	f := openBytes(t, libarchiveImage(t, "test_read_format_iso_rockridge"))
	want := map[string]string{
		"symlink":  "file",
		"symlink2": "/tmp",
		"symlink3": "/tmp/..",
		"symlink4": ".././../tmp",
		"symlink5": ".///file",
		"symlink6": "/tmp//..",
	}
	for name, target := range want {
		got, err := f.ReadLink(name)
		if err != nil || got != target {
			t.Errorf("ReadLink(%q) = %q, %v; want %q", name, got, err, target)
		}
		fi, err := f.Lstat(name)
		if err != nil || fi.Size() != int64(len(target)) {
			t.Errorf("Lstat(%q) size %v, %v; want %d", name, fi.Size(), err, len(target))
		}
	}
}

// TestLibarchiveLinksBsdtar checks the targets of libarchive's Rock Ridge
// image against what bsdtar lists.
func TestLibarchiveLinksBsdtar(t *testing.T) {
	t.Parallel()
	bsdtar := tooltest.Need(t, "bsdtar")
	b := libarchiveImage(t, "test_read_format_iso_rockridge")
	cmd := exec.Command(bsdtar, "tvf", "-")
	cmd.Stdin = bytes.NewReader(b)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bsdtar: %v", err)
	}
	f := openBytes(t, b)
	n := 0
	for _, line := range strings.Split(string(out), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 3 || fields[len(fields)-2] != "->" {
			continue
		}
		name, target := fields[len(fields)-3], fields[len(fields)-1]
		if got, err := f.ReadLink(name); err != nil || got != target {
			t.Errorf("ReadLink(%q) = %q, %v; bsdtar reads %q", name, got, err, target)
		}
		n++
	}
	if n != 6 {
		t.Errorf("bsdtar lists %d links, want 6:\n%s", n, out)
	}
}
