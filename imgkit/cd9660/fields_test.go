package cd9660

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// bootImage makes an xorriso image with Rock Ridge, Joliet and an El
// Torito no-emulation boot image of the test tree.
func bootImage(t *testing.T) string {
	t.Helper()
	xorriso := tooltest.Need(t, "xorriso")
	src := makeSource(t, testFiles())
	if err := os.WriteFile(filepath.Join(src, "boot.img"), pattern("boot", 2048), 0o644); err != nil {
		t.Fatal(err)
	}
	img := filepath.Join(t.TempDir(), "b.iso")
	out, err := exec.Command(xorriso, "-as", "mkisofs", "-quiet", "-R", "-J", "-V", "FIELDS",
		"-b", "boot.img", "-no-emul-boot", "-boot-load-size", "4", "-o", img, src).CombinedOutput()
	if err != nil {
		t.Fatalf("xorriso: %v\n%s", err, out)
	}
	return img
}

// TestFields checks the description of an image: each (Path, Name) pair
// once, every field inside the image, the fields named by ECMA-119, SUSP,
// RRIP and El Torito present with the values the FS reads, and each
// regular file's data field giving its contents' size and sum.
func TestFields(t *testing.T) {
	t.Parallel()
	img := bootImage(t)
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	fields, err := Fields(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	byKey := tooltest.IndexFields(t, fields, int64(len(b)))
	for _, w := range []struct{ path, name, value string }{
		{"primary volume descriptor", "Standard Identifier", `"CD001"`},
		{"primary volume descriptor", "Volume Identifier", `"FIELDS"`},
		{"primary volume descriptor", "Logical Block Size", "2048"},
		{"supplementary volume descriptor (Joliet)", "Escape Sequences", `"%/E"`},
		{"supplementary volume descriptor (Joliet)", "Volume Identifier", `"FIELDS"`},
		{"boot record", "Boot System Identifier", `"EL TORITO SPECIFICATION\x00\x00\x00\x00\x00\x00\x00\x00\x00"`},
		{"type L path table record 1", "Directory Identifier", `"\x00"`},
		{"type M path table record 2", "Parent Directory Number", "1"},
		{"Joliet type L path table record 1", "Parent Directory Number", "1"},
		{"/a.txt", "File Identifier", `"A.TXT;1"`},
		{"/a.txt", "RRIP NM", `version 1, flags 0x00, "a.txt"`},
		{"/link", "RRIP SL", `version 1, flags 0x00, components "a.txt"`},
		{"/dir", "File Flags", "0x02 Directory"},
		{"joliet:/a.txt", "File Identifier", `"a.txt"`},
		{"boot catalog", "Validation Entry Key Bytes", "0x55aa"},
		{"boot catalog", "Initial/Default Entry Boot Indicator", "0x88 bootable"},
		{"boot catalog", "Initial/Default Entry Boot Media Type", "0x00 no emulation"},
		{"boot catalog", "Initial/Default Entry Sector Count", "4"},
	} {
		f, ok := byKey[[2]string{w.path, w.name}]
		if !ok {
			t.Errorf("no field %q %q", w.path, w.name)
		} else if f.Value != w.value {
			t.Errorf("field %q %q = %s, want %s", w.path, w.name, f.Value, w.value)
		}
	}
	for _, name := range []string{"SUSP SP", "SUSP ER", "RRIP PX", "RRIP TF"} {
		if _, ok := byKey[[2]string{"/.", name}]; !ok {
			t.Errorf("no field %q of the root's \".\" record", name)
		}
	}
	checkDataFields(t, b, byKey)
}

// checkDataFields checks that every regular file of the image b has a
// data field with its size and sum, and that its spans hold the contents.
func checkDataFields(t *testing.T, b []byte, byKey map[[2]string]describe.Field) {
	t.Helper()
	fsys, err := NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			t.Fatal(err)
		}
		f, ok := byKey[[2]string{"/" + p, "data"}]
		if want := describe.DataValue(int64(len(data)), describe.Sum(data)); !ok || f.Value != want {
			t.Errorf("%s: data field %q, want %q", p, f.Value, want)
		}
		var spans []byte
		for _, s := range f.Spans {
			spans = append(spans, b[s[0]:s[1]]...)
		}
		if !bytes.Equal(spans, data) {
			t.Errorf("%s: the data field's spans do not hold the file's contents", p)
		}
		n++
		return nil
	})
	if n < 5 {
		t.Errorf("%d regular files checked, want at least 5", n)
	}
}

// TestMatch checks Match on an ISO image, its first HeadSize bytes, and
// on what is not one.
func TestMatch(t *testing.T) {
	t.Parallel()
	src := makeSource(t, []srcFile{{name: "a", size: 1, mode: 0o644}})
	b, err := os.ReadFile(makeImage(t, isoTools[0], src))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		head []byte
		want bool
	}{
		{"image", b, true},
		{"head", b[:describe.HeadSize], true},
		{"cut before the identifier", b[:32770], false},
		{"zeros", make([]byte, describe.HeadSize), false},
		{"nil", nil, false},
		{"bad type", append(append(append([]byte{}, b[:32768]...), 7), b[32769:40000]...), false},
	} {
		if got := Match(c.head); got != c.want {
			t.Errorf("Match(%s) = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestSummaryColumn checks the summary and listing column of Describe.
func TestSummaryColumn(t *testing.T) {
	t.Parallel()
	rc, err := OpenReader(bootImage(t))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	d := Describe()
	if got, want := d.Summary(&rc.FS), "ISO 9660, Rock Ridge, Joliet level 3, El Torito"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
	fi, err := rc.Stat("a.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Column(fi); !strings.HasPrefix(got, "A.TXT;1@") {
		t.Errorf("Column(a.txt) = %q, want A.TXT;1@<extent>", got)
	}
}
