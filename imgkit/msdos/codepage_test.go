package msdos

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// highByteImage writes an image of 13 files named X0000000.000 (X from A
// to M; exact 8.3 names, so no long names) and patches bytes 1 to 10 of
// their short names to hold every byte from 0x80 to 0xFF, in order. When
// lower is set the first file's NTRes says both parts are lower case. It
// returns the image and the patched 11-byte names.
func highByteImage(t *testing.T, lower bool) (string, [][11]byte) {
	t.Helper()
	var files []srcFile
	for i := 0; i < 13; i++ {
		files = append(files, srcFile{name: fmt.Sprintf("%c0000000.000", 'A'+i), size: 1})
	}
	_, tr := buildTree(t, files)
	img := writeImage(t, tr, nil)
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	var names [][11]byte
	c := 0x80
	for i := 0; i < 13; i++ {
		off := bytes.Index(b, []byte(fmt.Sprintf("%c0000000000", 'A'+i)))
		if off < 0 {
			t.Fatalf("short name of file %d not found", i)
		}
		for k := 1; k < 11 && c <= 0xFF; k++ {
			b[off+k] = byte(c)
			c++
		}
		if lower && i == 0 {
			b[off+12] = ntLowerBase | ntLowerExt
		}
		var n [11]byte
		copy(n[:], b[off:off+11])
		names = append(names, n)
	}
	if err := os.WriteFile(img, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return img, names
}

// rootNames returns the names of img's root directory, sorted.
func rootNames(t *testing.T, img string) []string {
	t.Helper()
	ents, err := openImage(t, img).ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// TestShortNameCodePage checks that short-name bytes 0x80..0xFF are read
// as code page 850, the characters mtools' mdir and fsck.fat -l show by
// default, not as Latin-1 (0x82 is é, not U+0082) nor code page 437 (0xE4
// is õ, not Σ): first for chosen bytes, then for all 128 against fsck.fat.
func TestShortNameCodePage(t *testing.T) {
	t.Parallel()
	img, _ := highByteImage(t, false)
	names := rootNames(t, img)
	if len(names) != 13 {
		t.Fatalf("%d names, want 13: %q", len(names), names)
	}
	// A: bytes 0x80..0x89; D: 0x9E..0xA7; I: 0xD0..0xD9; K: 0xE4..0xED; M: 0xF8..0xFF.
	for _, want := range []string{"AÇüéâäàå.çêë", "D×ƒáíóúñ.Ñªº", "IðÐÊËÈıÍ.ÎÏ┘", "KõÕµþÞÚÛ.ÙýÝ", "M°¨·¹³²■.\u00a000"} {
		i := want[0] - 'A'
		if names[i] != want {
			t.Errorf("file %c: name %q, want %q", want[0], names[i], want)
		}
	}
	fsck := tooltest.Need(t, "fsck.fat")
	cmd := exec.Command(fsck, "-n", "-l", img)
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("fsck.fat -n -l: %v\n%s", err, out)
	}
	var theirs []string
	for line := range strings.Lines(string(out)) {
		if name, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "Checking file /"); ok {
			theirs = append(theirs, name)
		}
	}
	sort.Strings(theirs)
	if strings.Join(names, "\n") != strings.Join(theirs, "\n") {
		t.Errorf("names:\n%s\nfsck.fat -l shows:\n%s", strings.Join(names, "\n"), strings.Join(theirs, "\n"))
	}
}

// TestShortNameCodePageLower checks that the NTRes lower-case bits lower
// the decoded letters, accented ones included, as mdir shows them.
func TestShortNameCodePageLower(t *testing.T) {
	t.Parallel()
	img, _ := highByteImage(t, true)
	names := rootNames(t, img)
	if !strings.Contains(strings.Join(names, "\n"), "açüéâäàå.çêë") {
		t.Errorf("names %q, want AÇüéâäàå.çêë lower-cased to açüéâäàå.çêë", names)
	}
}
