package ffs

import (
	"bytes"
	"testing"
	"testing/fstest"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// TestPackedGroupsSameBytes builds images whose cylinder groups do not
// all stay unpacked (cgResidentBytes at its least: two groups resident)
// and checks that they are the bytes of the images built with every
// group resident: packing, unpacking and making a group again with
// initcg lose nothing. It sets a package variable, so it does not run in
// parallel. (go test with cgResidentBytes = 0 passes the FreeBSD
// byte-identity matrix too.)
func TestPackedGroupsSameBytes(t *testing.T) {
	files := fstest.MapFS{}
	for i := range 40 {
		name := string(rune('a'+i%26)) + "/" + string(rune('a'+i/26)) + "f"
		files[name] = &fstest.MapFile{Data: bytes.Repeat([]byte{byte(i + 1)}, 3000*i+100)}
	}
	files["big"] = &fstest.MapFile{Data: bytes.Repeat([]byte("x"), 3<<20)}
	opts := []*Options{
		{Size: 64 << 20, BSize: 4096, FSize: 512, MaxBPCG: 256},
		{Size: 64 << 20, BSize: 4096, FSize: 1024, Version: 2, MaxBPCG: 512},
		{Version: 2, BSize: 8192, FSize: 1024, MaxBPCG: 1024},
	}
	for _, o := range opts {
		want, err := Build(fstree.FS(files), o)
		if err != nil {
			t.Fatal(err)
		}
		old := cgResidentBytes
		cgResidentBytes = 0
		got, err := Build(fstree.FS(files), o)
		cgResidentBytes = old
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%+v: the image differs when groups are packed", *o)
		}
	}
}
