package vdisk_test

import (
	"bytes"
	"fmt"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
	"github.com/fixturegen/fixturegen/imgkit/vdisk"
	"github.com/fixturegen/fixturegen/imgkit/vdisk/qcow"
)

// A raw disk of 1 MiB in a qcow2 container, written and read back.
func Example() {
	raw := make([]byte, 1<<20)
	copy(raw[4096:], "hello")
	var f vdisk.Format = qcow.Format{Version: 2}
	p := &vdisk.Params{SectorSize: 512, BlockSize: 512, Heads: 1, SectorsPerTrack: 1, Sectors: 2048}
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
	fmt.Printf("%s container of %d bytes holds %d bytes: %q\n", f.Name(), size, r.Size(), b)
	// Output: qcow2 container of 393216 bytes holds 1048576 bytes: "hello"
}
