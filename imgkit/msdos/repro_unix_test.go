//go:build unix

package msdos

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
	_ "time/tzdata" // Asia/Kolkata even where the host has no zoneinfo

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// TestReproducible builds the same tree twice, differently: the second
// time created in reverse order under umask 077, with the local time zone
// Asia/Kolkata and the other cache mode. The images must be identical.
func TestReproducible(t *testing.T) {
	// not parallel: it changes the umask and time.Local.
	kolkata, err := time.LoadLocation("Asia/Kolkata")
	if err != nil {
		t.Fatal(err)
	}
	files := sampleFiles()
	for i := range files {
		files[i].mtime = baseTime.Add(time.Duration(i) * 3 * time.Second)
	}
	for _, o := range []Options{{}, {FATType: 16, VolumeLabel: "Repro"}, {FATType: 32, SectorsPerCluster: 1}} {
		build := func(order []srcFile, umask int, loc *time.Location, mode bcache.Mode) []byte {
			old := syscall.Umask(umask)
			defer syscall.Umask(old)
			oldLoc := time.Local
			time.Local = loc
			defer func() { time.Local = oldLoc }()
			dir := t.TempDir()
			makeSource(t, dir, order)
			tr, err := fstree.WalkDir(dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			img := filepath.Join(t.TempDir(), "r.img")
			oo := o
			oo.Cache = &bcache.Options{Mode: mode}
			if err := WriteFile(img, tr, &oo); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(img)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		a := build(files, 0o022, time.UTC, bcache.ModeMmap)
		rev := slices.Clone(files)
		slices.Reverse(rev)
		b := build(rev, 0o077, kolkata, bcache.ModeCopy)
		if !bytes.Equal(a, b) {
			i := 0
			for i < len(a) && i < len(b) && a[i] == b[i] {
				i++
			}
			t.Errorf("%+v: images differ (%d and %d bytes), first at byte %#x", o, len(a), len(b), i)
		}
		c := build(files, 0o022, kolkata, bcache.ModeCopy)
		if !bytes.Equal(a, c) {
			t.Errorf("%+v: copy mode differs from mmap mode", o)
		}
	}
}
