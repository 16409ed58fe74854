package msdos

import (
	"testing"
)

func TestWriteSmallest(t *testing.T) {
	_, tr := buildTree(t, sampleFiles())
	img := writeImage(t, tr, &Options{VolumeLabel: "fixture"})
	fsckClean(t, img)
}
