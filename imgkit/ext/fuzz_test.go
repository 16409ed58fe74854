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

	"github.com/fixturegen/fixturegen/imgkit/imgfmt/imgfmttest"
)

// FuzzOpen opens arbitrary bytes as an ext image and reads everything in
// it: every directory, file, link target and field. Bad images must give
// errors, never panics, hangs or huge allocations, and every error that
// wraps ErrFormat must be an *imgfmt.FormatError with a byte of the
// image or -1 as its Off.
//
// The seeds in testdata/fuzz/FuzzOpen are small images the reference
// mke2fs made (ext2 with indirect blocks, ext4 with extents, inline data
// and metadata_csum, ext4 with extended attributes in inodes, a block and
// an ea_inode); regenerate them with
//
//	FIXTUREGEN_WRITE_SEEDS=1 go test -run TestWriteFuzzSeeds ./imgkit/ext/
//
// Each input runs in well under a millisecond, but the seeds are images of
// 40 to 50 KiB, whose minimizing would take each minute the fuzzer finds
// something: FuzzOpen turns it off (imgfmttest.NoMinimize) unless the
// command line sets -fuzzminimizetime.
func FuzzOpen(f *testing.F) {
	imgfmttest.NoMinimize(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		size := int64(len(b))
		check := func(err error) { t.Helper(); imgfmttest.CheckFormatError(t, err, size, "ext", ErrFormat) }
		fsys, err := NewReader(bytes.NewReader(b), size)
		if err != nil {
			check(err)
			return
		}
		fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				check(err)
				return nil
			}
			_, err = fsys.Inode(p)
			check(err)
			_, err = fsys.Extents(p)
			check(err)
			_, err = fs.Stat(fsys, p)
			check(err)
			_, err = fsys.ReadLink(p)
			check(err)
			_, err = fsys.Xattrs(p)
			check(err)
			if d.Type().IsRegular() {
				fl, err := fsys.Open(p)
				check(err)
				if err == nil {
					_, err = io.Copy(io.Discard, io.LimitReader(fl, 1<<20))
					check(err)
					fl.Close()
				}
			}
			return nil
		})
		fsys.Warnings()
		_, err = Fields(bytes.NewReader(b), size)
		check(err)
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
		{"-t", "ext4", "-b", "1024", "-N", "24", "-O", "^has_journal,ea_inode"},
	} {
		img := mke2fs(t, refMke2fs, src, "100k", args...)
		if i == 3 {
			// Extended attributes: in the inode, in a block, and a
			// value of a block in an ea_inode.
			big := filepath.Join(t.TempDir(), "big")
			os.WriteFile(big, bytes.Repeat([]byte("v"), 1024), 0o644)
			debugfs(t, img, true, "ea_set /a.txt user.in inode", "ea_set /a.txt trusted.t "+strings.Repeat("b", 200),
				"ea_set -f "+big+" /d user.ea", "ea_set /d/inline security.s "+strings.Repeat("c", 120))
		}
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
