package cd9660_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/inspect"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// xorrisoImage returns the bytes of an xorriso image with Rock Ridge and
// Joliet of a tree with a.txt (holding data) and dir/b.
func xorrisoImage(t *testing.T, data string) []byte {
	t.Helper()
	xorriso := tooltest.Need(t, "xorriso")
	src := t.TempDir()
	os.MkdirAll(filepath.Join(src, "dir"), 0o755)
	os.WriteFile(filepath.Join(src, "a.txt"), []byte(data), 0o644)
	os.WriteFile(filepath.Join(src, "dir", "b"), []byte("b\n"), 0o644)
	img := filepath.Join(t.TempDir(), "x.iso")
	out, err := exec.Command(xorriso, "-as", "mkisofs", "-quiet", "-R", "-J", "-o", img, src).CombinedOutput()
	if err != nil {
		t.Fatalf("xorriso: %v\n%s", err, out)
	}
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestInspect checks that imgkit/inspect detects, lists, reads and diffs
// ISO images through the registered format.
func TestInspect(t *testing.T) {
	t.Parallel()
	a := xorrisoImage(t, "hello\n")
	f := inspect.Detect(bytes.NewReader(a), int64(len(a)))
	if f == nil || f.Name != "cd9660" {
		t.Fatalf("Detect = %v, want cd9660", f)
	}
	var list strings.Builder
	if err := inspect.ListFile(&list, bytes.NewReader(a), int64(len(a))); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{" A.TXT;1@", " a.txt\n", " DIR@", " dir/\n", " B.;1@", " dir/b\n"} {
		if !strings.Contains(list.String(), want) {
			t.Errorf("listing has no %q:\n%s", want, list.String())
		}
	}
	fsys, _, err := inspect.Open(bytes.NewReader(a), int64(len(a)))
	if err != nil {
		t.Fatal(err)
	}
	var cat strings.Builder
	if err := inspect.Cat(&cat, fsys, "dir/b"); err != nil || cat.String() != "b\n" {
		t.Errorf("Cat dir/b = %q, %v", cat.String(), err)
	}
	// The same tree with other contents of a.txt: the diff names the data
	// field of /a.txt and explains every differing byte by a field.
	b := bytes.Clone(a)
	i := bytes.Index(b, []byte("hello\n"))
	copy(b[i:], "jello\n")
	rep, err := inspect.Diff(bytes.NewReader(a), int64(len(a)), bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	rep.Write(&out, "a.iso", "b.iso")
	if !strings.Contains(out.String(), "/a.txt: data: 6 bytes") || !strings.Contains(out.String(), "contents first differ at byte 0 of the file") {
		t.Errorf("diff:\n%s", out.String())
	}
	for _, c := range rep.Changes {
		if c.Kind == inspect.KindBytes {
			t.Errorf("bytes outside the fields: %+v", c)
		}
	}
}
