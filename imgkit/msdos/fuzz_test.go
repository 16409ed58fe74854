package msdos

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt/imgfmttest"
)

// FuzzOpen opens arbitrary bytes as a FAT image and reads everything in
// it: every directory, every file and every entry's cluster chain. Bad
// images must give errors, never panics or huge allocations, and every
// error that wraps ErrFormat must be an *imgfmt.FormatError with a byte
// of the image or -1 as its Off.
//
// The seeds in testdata/fuzz/FuzzOpen are small FAT12 images made by this
// package's writer; regenerate them with
//
//	FIXTUREGEN_WRITE_SEEDS=1 go test -run TestWriteFuzzSeeds ./imgkit/msdos/
func FuzzOpen(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		size := int64(len(b))
		fsys, err := NewReader(bytes.NewReader(b), size)
		if err != nil {
			imgfmttest.CheckFormatError(t, err, size, "msdos", ErrFormat)
			return
		}
		fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				imgfmttest.CheckFormatError(t, err, size, "msdos", ErrFormat)
				return nil
			}
			_, err = fsys.Entry(p)
			imgfmttest.CheckFormatError(t, err, size, "msdos", ErrFormat)
			_, err = fs.Stat(fsys, p)
			imgfmttest.CheckFormatError(t, err, size, "msdos", ErrFormat)
			if !d.IsDir() {
				_, err = fs.ReadFile(fsys, p)
				imgfmttest.CheckFormatError(t, err, size, "msdos", ErrFormat)
			}
			return nil
		})
	})
}

// TestWriteFuzzSeeds regenerates the FuzzOpen seed corpus when
// FIXTUREGEN_WRITE_SEEDS=1.
func TestWriteFuzzSeeds(t *testing.T) {
	t.Parallel()
	if os.Getenv("FIXTUREGEN_WRITE_SEEDS") != "1" {
		t.Skip("set FIXTUREGEN_WRITE_SEEDS=1 to rewrite testdata/fuzz/FuzzOpen")
	}
	files := []srcFile{
		{name: "A.TXT", size: 5},
		{name: "long name.text", size: 600},
		{name: "d/Ünï 𝄞", size: 3},
		{name: "d/e/"},
		{name: "ro", size: 1, mode: 0o444},
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzOpen")
	os.MkdirAll(dir, 0o755)
	for i, o := range []Options{
		{DirectoryEntries: 16, VolumeLabel: "SEED"},
		{DirectoryEntries: 16, SectorsPerCluster: 2, NumFATs: 1},
		{DirectoryEntries: 128, BytesPerSector: 1024},
	} {
		_, tr := buildTree(t, files)
		img := writeImage(t, tr, &o)
		b, err := os.ReadFile(img)
		if err != nil {
			t.Fatal(err)
		}
		seed := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed%d", i)), []byte(seed), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("seed%d: image %d bytes, corpus file %d bytes", i, len(b), len(seed))
	}
}
