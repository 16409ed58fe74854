package ext

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// TestWriteReproducible checks that without UUID, HashSeed and Timestamp
// the same tree gives the same bytes, whose ids follow the tree's
// contents and whose superblock times are the tree's newest mtime.
func TestWriteReproducible(t *testing.T) {
	t.Parallel()
	mtime := time.Unix(1_600_000_000, 0)
	tree := func(content string) string {
		dir := filepath.Join(t.TempDir(), "src")
		if err := os.MkdirAll(filepath.Join(dir, "d"), 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "d", "f")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{p, filepath.Join(dir, "d"), dir} {
			if err := os.Chtimes(q, mtime, mtime); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	ids := func(img []byte) (uuid, seed []byte, wtime uint32) {
		f, err := NewReader(bytes.NewReader(img), int64(len(img)))
		if err != nil {
			t.Fatal(err)
		}
		return bytes.Clone(f.sb.sUUID()), bytes.Clone(f.sb.sHashSeed()), le.Uint32(f.sb.sWtime())
	}
	for _, typ := range []string{"ext2", "ext3"} {
		o := Options{Type: typ, Size: 4 << 20}
		a1, err := Build(fstree.Dir(tree("one")), &o)
		if err != nil {
			t.Fatal(err)
		}
		a2, err := Build(fstree.Dir(tree("one")), &o)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a1, a2) {
			t.Errorf("%s: the same tree twice gave different bytes", typ)
		}
		b, err := Build(fstree.Dir(tree("two")), &o)
		if err != nil {
			t.Fatal(err)
		}
		u1, s1, w1 := ids(a1)
		u2, s2, _ := ids(b)
		if bytes.Equal(u1, u2) || bytes.Equal(s1, s2) {
			t.Errorf("%s: another file content kept the UUID %x or hash seed %x", typ, u1, s1)
		}
		if bytes.Equal(u1, s1) || u1[6]>>4 != 4 || u1[8]>>6 != 2 {
			t.Errorf("%s: UUID %x, hash seed %x: want two distinct version 4 UUIDs", typ, u1, s1)
		}
		if w1 != uint32(mtime.Unix()) {
			t.Errorf("%s: s_wtime %d, want the tree's newest mtime %d", typ, w1, mtime.Unix())
		}
		// an option that moves blocks is in the seed
		op := o
		op.PackedMetaBlocks = true
		p, err := Build(fstree.Dir(tree("one")), &op)
		if err != nil {
			t.Fatal(err)
		}
		if u3, _, _ := ids(p); bytes.Equal(u1, u3) {
			t.Errorf("%s: PackedMetaBlocks kept the UUID %x", typ, u1)
		}
	}
}
