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
	// the tree is walked once: two folders made a second apart differ in
	// their ctimes, which the image keeps without a Timestamp, and a
	// read of a file moves its atime (relatime)
	tree := func(content string) *fstree.Tree {
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
		tree, err := fstree.Dir(dir).Tree(nil)
		if err != nil {
			t.Fatal(err)
		}
		return tree
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
		one := tree("one")
		a1, err := Build(one, &o)
		if err != nil {
			t.Fatal(err)
		}
		a2, err := Build(one, &o)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a1, a2) {
			t.Errorf("%s: the same tree twice gave different bytes", typ)
		}
		b, err := Build(tree("two"), &o)
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
		p, err := Build(one, &op)
		if err != nil {
			t.Fatal(err)
		}
		if u3, _, _ := ids(p); bytes.Equal(u1, u3) {
			t.Errorf("%s: PackedMetaBlocks kept the UUID %x", typ, u1)
		}
	}
}

// TestWriteReproducibleInPlace checks that the ids derived from a tree are
// the same whether the files' contents are hashed on the data writer's
// goroutine (Build, the one-pass layout) or by the layout itself (Write
// to a disk's section, built in place): files of zeros, a file with a
// hole and blocks of zeros across several read chunks, and small files
// sharing a chunk.
func TestWriteReproducibleInPlace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	big := make([]byte, 3*readChunk+5000)
	for i := range big {
		if i/4096%3 != 1 { // every third 4 KiB is zeros
			big[i] = byte(i*7 + i>>12)
		}
	}
	files := map[string][]byte{"big": big, "zeros": make([]byte, 9000), "empty": nil}
	for i := range 40 {
		files["small"+string(rune('a'+i%26))+string(rune('a'+i/26))] = bytes.Repeat([]byte{byte(i + 1)}, 100*i+1)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// a first file of holes only: its hashing is queued before any piece
	// is read, and in a tree of nothing else, with none
	holes := t.TempDir()
	for _, d := range []string{dir, holes} {
		if err := os.WriteFile(filepath.Join(d, "a-hole"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(filepath.Join(d, "a-hole"), 2*readChunk+1); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.OpenFile(filepath.Join(dir, "sparse"), os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("after the hole"), 5*readChunk+123); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{"ext2", "ext4"} {
		o := Options{Type: typ, Size: 24 << 20, Timestamp: time.Unix(1_600_000_000, 0), ClampTimes: true}
		for _, d := range []string{dir, holes} {
			one, err := Build(fstree.Dir(d), &o)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(one, buildInPlace(t, fstree.Dir(d), &o)) {
				t.Errorf("%s of %s: built in place, the image (and so its ids) differs from Build's", typ, filepath.Base(d))
			}
		}
		one, err := Build(fstree.Dir(dir), &o)
		if err != nil {
			t.Fatal(err)
		}
		// another byte in the big file's last chunk moves the ids
		changed := bytes.Clone(big)
		changed[len(changed)-1]++
		other := filepath.Join(t.TempDir(), "t")
		if err := os.CopyFS(other, os.DirFS(dir)); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(other, "big"), changed, 0o644); err != nil {
			t.Fatal(err)
		}
		two, err := Build(fstree.Dir(other), &o)
		if err != nil {
			t.Fatal(err)
		}
		r1, err := NewReader(bytes.NewReader(one), int64(len(one)))
		if err != nil {
			t.Fatal(err)
		}
		r2, err := NewReader(bytes.NewReader(two), int64(len(two)))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(r1.sb.sUUID(), r2.sb.sUUID()) {
			t.Errorf("%s: a byte changed at the end of a large file kept the UUID %x", typ, r1.sb.sUUID())
		}
	}
}
