package ext

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzOpen opens arbitrary bytes as an ext image and reads everything in
// it: every directory, file, link target and field. Bad images must give
// errors, never panics, hangs or huge allocations.
//
// The seeds in testdata/fuzz/FuzzOpen are small images the reference
// mke2fs made (ext2 with indirect blocks, ext4 with extents, inline data
// and metadata_csum); regenerate them with
//
//	FIXTUREGEN_WRITE_SEEDS=1 go test -run TestWriteFuzzSeeds ./imgkit/ext/
func FuzzOpen(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		fsys, err := NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			fsys.Inode(p)
			fsys.Extents(p)
			fs.Stat(fsys, p)
			fsys.ReadLink(p)
			if d.Type().IsRegular() {
				if fl, err := fsys.Open(p); err == nil {
					io.Copy(io.Discard, io.LimitReader(fl, 1<<20))
					fl.Close()
				}
			}
			return nil
		})
		fsys.Warnings()
		Fields(bytes.NewReader(b), int64(len(b)))
	})
}

// TestWriteFuzzSeeds regenerates the FuzzOpen seed corpus when
// FIXTUREGEN_WRITE_SEEDS=1.
func TestWriteFuzzSeeds(t *testing.T) {
	t.Parallel()
	if os.Getenv("FIXTUREGEN_WRITE_SEEDS") != "1" {
		t.Skip("set FIXTUREGEN_WRITE_SEEDS=1 to rewrite testdata/fuzz/FuzzOpen")
	}
	src := filepath.Join(t.TempDir(), "src")
	for name, data := range map[string]string{
		"a.txt":          "hello\n",
		"d/e/deep":       strings.Repeat("x", 3000),
		"d/inline":       "tiny",
		"Ünï 𝄞":          "utf-8",
		"d/e/indirect14": strings.Repeat("y", 14*1024+5),
	} {
		p := filepath.Join(src, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink(strings.Repeat("s", 70), filepath.Join(src, "slow"))
	os.Symlink("a.txt", filepath.Join(src, "fast"))
	dir := filepath.Join("testdata", "fuzz", "FuzzOpen")
	os.MkdirAll(dir, 0o755)
	for i, args := range [][]string{
		{"-t", "ext2", "-b", "1024", "-N", "24"},
		{"-t", "ext4", "-b", "1024", "-N", "24", "-O", "^has_journal,inline_data"},
		{"-t", "ext4", "-b", "1024", "-N", "24", "-I", "128", "-O", "^has_journal,^metadata_csum,^64bit"},
	} {
		img := mke2fs(t, refMke2fs, src, "100k", args...)
		b, err := os.ReadFile(img)
		if err != nil {
			t.Fatal(err)
		}
		// The image is cut after its last block holding a byte other
		// than 0, to keep the seed small: the rest reads as cut short.
		end := len(b)
		for end > 0 && b[end-1] == 0 {
			end--
		}
		b = b[:(end+1023)/1024*1024]
		out := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed%d", i)), []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
