package cd9660

import (
	"bytes"
	"testing"
	"testing/fstest"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// TestOwnImages reads back the images this package writes: for each set
// of options, fstest.TestFS passes on the image the writer built, and under
// Rock Ridge every name, type, mode, size, content, link target, device
// number and modification time equals the source tree's; without it, the
// Joliet or ISO 9660 tree holds the same files' contents.
func TestOwnImages(t *testing.T) {
	rrNames := []string{"a.txt", "ünïcödé.txt", "dir/big.bin", "deep/1/2/3/4/5/6/7/8/9/10/11/12/f"}
	t.Parallel()
	for _, c := range []struct {
		name string
		opts Options
		ns   Namespace
		want []string // files fstest.TestFS expects
	}{
		{"rockridge", Options{RockRidge: true}, RockRidge, rrNames},
		{"rockridge+joliet", Options{RockRidge: true, Joliet: true}, RockRidge, rrNames},
		{"rockridge relocated", Options{RockRidge: true, RelocateDeepTrees: true}, RockRidge, rrNames},
		{"rockridge level 3", Options{RockRidge: true, ISOLevel: 3}, RockRidge, rrNames},
		{"joliet", Options{Joliet: true, AllowDeepTrees: true}, Joliet, []string{"a.txt", "Mixed Case.TXT", "dir/big.bin"}},
		{"plain", Options{AllowDeepTrees: true}, ISO9660, []string{"A.TXT", "DIR/BIG.BIN", "DEEP/1/2/3/4/5/6/7/8/9/10/11/12/F"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			src := makeSource(t, testFiles())
			addSpecials(t, src)
			img, err := Build(fstree.Dir(src), &c.opts)
			if err != nil {
				t.Fatal(err)
			}
			f, err := NewReader(bytes.NewReader(img), int64(len(img)))
			if err != nil {
				t.Fatal(err)
			}
			if f.Namespace() != c.ns {
				t.Fatalf("namespace %v, want %v", f.Namespace(), c.ns)
			}
			if err := fstest.TestFS(f, c.want...); err != nil {
				t.Error(err)
			}
			if c.ns == RockRidge {
				compareTree(t, f, src, func(rel, target string) string { return target })
			}
			if _, err := Fields(bytes.NewReader(img), int64(len(img))); err != nil {
				t.Errorf("Fields: %v", err)
			}
		})
	}
}
