package ext

import (
	"bytes"
	"io/fs"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestReadSleuthkit lists the reference images of TestReadReference with
// sleuthkit's fls -r -p and reads their files with icat, and checks that
// the reader finds the same paths, inode numbers, types and contents
// (by default every other image, with -short every third, with
// FIXTUREGEN_LONG=1 all).
func TestReadSleuthkit(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, refMke2fs)
	tooltest.Need(t, "fls")
	src := mkTree(t)
	for i, v := range readVariants {
		if !tooltest.Thin(i, 2, 3) {
			continue
		}
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			img := mke2fs(t, refMke2fs, src, "32M", append([]string{"-N", "6000"}, v.args...)...)
			compareWithSleuthkit(t, &openImage(t, img).FS, img)
		})
	}
}

// flsLine matches a line of fls -r -p: the type of the entry and of its
// inode, a "*" for a deleted entry, the inode number and the path.
var flsLine = regexp.MustCompile(`^(\S)/(\S) (\* )?(\d+)(?:\(realloc\))?:\t(.*)$`)

// compareWithSleuthkit lists the raw image img with sleuthkit's fls -r
// -p and checks that fsys has the same paths with the same inode numbers
// and types (but for deleted entries and fls's $OrphanFiles), and that
// icat reads each regular file as fsys does.
func compareWithSleuthkit(t *testing.T, fsys *FS, img string) {
	t.Helper()
	fls := tooltest.Need(t, "fls")
	icat := tooltest.Need(t, "icat")
	out, err := exec.Command(fls, "-r", "-p", img).Output()
	if err != nil {
		t.Fatalf("fls: %v", err)
	}
	want := map[string]bool{}
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		m := flsLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("fls line %q", line)
		}
		if m[3] != "" || m[1] == "V" || strings.HasPrefix(m[5], "$OrphanFiles") {
			continue
		}
		p, typ := m[5], m[1]
		want[p] = true
		in, err := fsys.Inode(p)
		if err != nil {
			t.Errorf("fls lists %s, which the reader does not find: %v", p, err)
			continue
		}
		if strconv.FormatUint(uint64(in.Ino), 10) != m[4] {
			t.Errorf("%s: inode %d, fls %s", p, in.Ino, m[4])
		}
		if got := flsType(in.Mode); got != typ {
			t.Errorf("%s: type %s, fls %s", p, got, typ)
		}
		if typ == "r" && in.Size > 0 { // an icat per empty file would be thousands of runs
			wb, err := exec.Command(icat, img, m[4]).Output()
			if err != nil {
				t.Fatalf("icat %s: %v", m[4], err)
			}
			gb, err := fs.ReadFile(fsys, p)
			if err != nil || !bytes.Equal(gb, wb) {
				t.Errorf("%s: %d bytes, %v; icat gives %d bytes, other ones", p, len(gb), err, len(wb))
			}
		}
	}
	fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && p != "." && !want[p] {
			t.Errorf("the reader lists %s, fls does not", p)
		}
		return nil
	})
}

// flsType is the letter fls gives a file of mode.
func flsType(mode uint16) string {
	switch mode & 0o170000 {
	case 0o100000:
		return "r"
	case 0o040000:
		return "d"
	case 0o120000:
		return "l"
	case 0o020000:
		return "c"
	case 0o060000:
		return "b"
	case 0o010000:
		return "p"
	case 0o140000:
		return "h"
	}
	return "-"
}
