package vhd_test

import (
	"bytes"
	"fmt"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
	"github.com/fixturegen/fixturegen/imgkit/vdisk"
	"github.com/fixturegen/fixturegen/imgkit/vdisk/vhd"
)

// A raw disk of 1 MiB written as a container and read back.
func Example() {
	raw := make([]byte, 1<<20)
	copy(raw[4096:], "hello")
	f := vhd.Format{}
	p := &vdisk.Params{SectorSize: 512, BlockSize: 512, Heads: 1, SectorsPerTrack: 1, Sectors: 2048,
		FreeBSDTestMode: true, ID: func(string) [16]byte { return [16]byte{1} }}
	size, write, err := f.Write(p, vdisk.NewDisk(bytes.NewReader(raw), int64(len(raw))))
	if err != nil {
		panic(err)
	}
	im, err := imgfmt.WriteImage(imgfmt.ToMemory(), size, nil, write)
	if err != nil {
		panic(err)
	}
	r, err := f.Open(bytes.NewReader(im.Bytes()), size)
	if err != nil {
		panic(err)
	}
	b := make([]byte, 5)
	r.ReadAt(b, 4096)
	fmt.Printf("%s holds %d bytes: %q\n", f.Name(), r.Size(), b)
	// Output: vhd holds 1048576 bytes: "hello"
}
