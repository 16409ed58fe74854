package bcache

import (
	"bytes"
	"errors"
	"testing"
)

// modes lists the modes every behaviour test runs in: both where the system
// has mmap, the copy mode alone elsewhere.
var modes = availableModes()

func availableModes() []Mode {
	if mmapSupported {
		return []Mode{ModeMmap, ModeCopy}
	}
	return []Mode{ModeCopy}
}

// pairModes are the modes the property test compares: mmap against copy, or
// copy against copy (and the model) where there is no mmap.
func pairModes() [2]Mode {
	if mmapSupported {
		return [2]Mode{ModeMmap, ModeCopy}
	}
	return [2]Mode{ModeCopy, ModeCopy}
}

func TestBasic(t *testing.T) {
	t.Parallel()
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			t.Parallel()
			im := mustOpen(t, tg, 1<<20, nil)
			if im.Mode() != tg.mode {
				t.Fatalf("Mode() = %v, want %v", im.Mode(), tg.mode)
			}
			b, err := im.Getblk(512, 1024)
			if err != nil {
				t.Fatal(err)
			}
			if !b.Fresh() {
				t.Error("Getblk buffer not fresh")
			}
			copy(b.Data(), "hello")
			if err := im.Bwrite(b); err != nil {
				t.Fatal(err)
			}
			b, err = im.Bread(512, 512)
			if err != nil {
				t.Fatal(err)
			}
			if b.Fresh() || string(b.Data()[:5]) != "hello" {
				t.Errorf("Bread: fresh %v data %q", b.Fresh(), b.Data()[:5])
			}
			im.Brelse(b)
			if _, err := im.WriteAt([]byte("world"), 4096); err != nil {
				t.Fatal(err)
			}
			if err := im.CopyFrom(8192, bytes.NewReader([]byte("bulk")), 4); err != nil {
				t.Fatal(err)
			}
			if err := im.Commit(); err != nil {
				t.Fatal(err)
			}
			got := im.result(t)
			want := make([]byte, 1<<20)
			copy(want[512:], "hello")
			copy(want[4096:], "world")
			copy(want[8192:], "bulk")
			if !bytes.Equal(got, want) {
				t.Error("image bytes differ")
			}
			if err := im.Abort(); err != nil {
				t.Errorf("Abort after Commit: %v", err)
			}
			if _, err := im.Getblk(0, 512); !errors.Is(err, ErrClosed) {
				t.Errorf("Getblk after Commit: %v", err)
			}
		})
	}
}
