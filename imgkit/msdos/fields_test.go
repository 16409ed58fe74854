package msdos

import (
	"bytes"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// TestMatch checks that Match accepts FAT12, FAT16 and FAT32 volumes and
// rejects a boot sector as soon as one of the fields it checks is wrong,
// and that Describe gives what the format contract asks.
func TestMatch(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{"A.TXT": {Data: []byte("a\n"), Mode: 0o644}}
	for _, o := range []Options{
		{FATType: 12, Size: 1440 << 10},
		{FATType: 16, SectorsPerCluster: 4, Size: 16 << 20},
		{FATType: 32, SectorsPerCluster: 1, Size: 33 << 20},
		{BytesPerSector: 4096, Size: 16 << 20},
	} {
		o.Timestamp = time.Unix(1700000000, 0)
		img, err := Build(fstree.FS(fsys), &o)
		if err != nil {
			t.Fatal(err)
		}
		if !Match(img) {
			t.Errorf("FAT%d, %d-byte sectors: Match rejects the image", o.FATType, o.BytesPerSector)
		}
		f, err := NewReader(bytes.NewReader(img), int64(len(img)))
		if err != nil {
			t.Fatal(err)
		}
		if got := summary(f); got == "" || got[:3] != "FAT" {
			t.Errorf("summary = %q", got)
		}
	}

	img, err := Build(fstree.FS(fsys), &Options{Size: 1440 << 10, Timestamp: time.Unix(1700000000, 0)})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		what string
		off  int
		b    []byte
		want bool
	}{
		{"near jump", 0, []byte{jmpNear}, true},
		{"no jump", 0, []byte{0}, false},
		{"BPB_BytsPerSec 256", 11, []byte{0, 1}, false},
		{"BPB_BytsPerSec 8192", 11, []byte{0, 0x20}, false},
		{"BPB_BytsPerSec 1536", 11, []byte{0, 6}, false},
		{"BPB_BytsPerSec 2048", 11, []byte{0, 8}, true},
		{"BPB_SecPerClus 0", 13, []byte{0}, false},
		{"BPB_SecPerClus 3", 13, []byte{3}, false},
		{"BPB_SecPerClus 128", 13, []byte{128}, true},
		{"no signature", 510, []byte{0x55, 0}, false},
		{"BPB_RsvdSecCnt 0", 14, []byte{0, 0}, false},
		{"BPB_NumFATs 0", 16, []byte{0}, false},
		{"BPB_NumFATs 1", 16, []byte{1}, true},
	} {
		head := bytes.Clone(img[:512])
		copy(head[tc.off:], tc.b)
		if got := Match(head); got != tc.want {
			t.Errorf("%s: Match = %v, want %v", tc.what, got, tc.want)
		}
	}
	if Match(img[:511]) {
		t.Error("Match accepts 511 bytes")
	}
	d := Describe()
	if err := d.Check(); err != nil || d.Name != "msdos" || d.Fields == nil || d.Summary == nil || d.Column == nil {
		t.Errorf("Describe() = %+v, %v", d, err)
	}
}
