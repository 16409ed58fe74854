package msdos

import (
	"bytes"
	"os"
	"testing"
)

func TestWriteSmallest(t *testing.T) {
	_, tr := buildTree(t, sampleFiles())
	img := writeImage(t, tr, &Options{VolumeLabel: "fixture"})
	fsckClean(t, img)
}

// TestSmallest checks that the image made without a size is the smallest:
// one sector less does not hold the tree, and giving its size with -s
// makes the same bytes.
func TestSmallest(t *testing.T) {
	_, tr := buildTree(t, sampleFiles())
	for _, o := range []Options{{}, {FATType: 16}, {FATType: 32}, {BytesPerSector: 4096}, {SectorsPerCluster: 4}, {VolumeLabel: "X", NumFATs: 1}} {
		l, err := LayoutOf(tr, &o)
		if err != nil {
			t.Fatal(err)
		}
		a := writeImage(t, tr, &o)
		fixed := o
		fixed.Size = l.ImageSize
		b := writeImage(t, tr, &fixed)
		ab, _ := os.ReadFile(a)
		bb, _ := os.ReadFile(b)
		if !bytes.Equal(ab, bb) {
			t.Errorf("%+v: -s %d gives different bytes from the smallest image", o, l.ImageSize)
		}
		less := o
		less.Size = l.ImageSize - int64(l.BytesPerSector)
		if _, err := LayoutOf(tr, &less); err == nil {
			t.Errorf("%+v: %d bytes also hold the tree; the smallest was %d", o, less.Size, l.ImageSize)
		}
	}
}
