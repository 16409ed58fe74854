package ffs

import (
	"bytes"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// TestBoundedBookkeepingSameBytes builds images whose cylinder groups do
// not all stay unpacked (cgResidentBytes at its least: two groups
// resident) and whose di_gen values are drawn again from marks
// (gensResidentBytes 0), and checks that they are the bytes of the images
// built with everything kept: packing, unpacking, making a group again
// with initcg and drawing a group's values again lose nothing. It sets
// package variables, so it does not run in parallel. (go test with both
// at 0 passes the FreeBSD byte-identity matrix too, which ignores di_gen.)
func TestBoundedBookkeepingSameBytes(t *testing.T) {
	// not parallel: it sets the package variables cgResidentBytes and gensResidentBytes.
	files := fstest.MapFS{}
	for i := range 300 {
		name := string(rune('a'+i%26)) + "/" + string(rune('a'+i/26%26)) + "/f" + string(rune('a'+i/100))
		files[name] = &fstest.MapFile{Data: bytes.Repeat([]byte{byte(i + 1)}, 300*i+100)}
	}
	files["big"] = &fstest.MapFile{Data: bytes.Repeat([]byte("x"), 3<<20)}
	opts := []*Options{
		{Size: 64 << 20, BSize: 4096, FSize: 512, MaxBPCG: 256, Timestamp: time.Unix(1600000000, 0)},
		{Size: 64 << 20, BSize: 4096, FSize: 1024, Version: 2, MaxBPCG: 512, Density: 2048},
		{Version: 2, BSize: 8192, FSize: 1024, MaxBPCG: 1024},
		{Size: 48 << 20, BSize: 4096, FSize: 512, MaxBPCG: 128, Density: 4096},
	}
	if testing.Short() {
		// This test is serial: -short (CI's race run) builds the first two
		// layouts, UFS1 and UFS2, and the run without -short all four.
		opts = opts[:2]
	}
	for _, o := range opts {
		want, err := Build(fstree.FS(files), o)
		if err != nil {
			t.Fatal(err)
		}
		oldCg, oldGens := cgResidentBytes, gensResidentBytes
		cgResidentBytes, gensResidentBytes = 0, 0
		got, err := Build(fstree.FS(files), o)
		cgResidentBytes, gensResidentBytes = oldCg, oldGens
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%+v: the image differs when groups are packed and di_gen drawn again", *o)
		}
	}
}
