package cd9660

import (
	"fmt"
	"math"
)

// bootEntry is one boot image as the plan places it.
type bootEntry struct {
	index    int    // in Boot.Images
	size     int64  // bytes of the image file
	system   byte   // Platform ID of the image's System
	platform byte   // Platform ID of its Section Header (platformid)
	media    byte   // Boot Media Type
	bootable bool   // Boot Indicator of the Initial/Default Entry (no-boot)
	segment  uint16 // Load Segment
	count    uint32 // makefs's num_sectors: 512-byte sectors of whole logical sectors
	rba      uint32 // Load RBA: the logical sector the image starts at
}

// bootPlan is where the boot catalogue and the boot images go, and what
// the catalogue says, as makefs's cd9660_setup_boot works them out.
type bootPlan struct {
	sectorSize     int
	catalogSector  uint32 // the catalogue's first logical sector
	catalogSectors uint32 // logical sectors reserved for the catalogue
	// entries are the images in makefs's order, the order they are placed
	// on the disc in and the catalogue lists them in.
	entries []bootEntry
	initial int  // index in entries of the Initial/Default Entry's image
	debian  bool // Debian's makefs's catalogue and System Area (compat=debian)
	// end is the first logical sector after the boot area. makefs adds
	// the images' 512-byte sector counts to the catalogue's logical ones,
	// so with 2048-byte sectors the area is larger than what it holds; the
	// path tables follow it.
	end uint32
}

// floppyMedia maps the sizes of the emulated floppies to their Boot Media
// Types (El Torito 2.2).
var floppyMedia = map[int64]byte{
	1200 * 1024: etMediaFloppy12,
	1440 * 1024: etMediaFloppy144,
	2880 * 1024: etMediaFloppy288,
}

// planBoot lays out the boot catalogue and the images of b, whose files
// are sizes[i] bytes long, from logical sector first on (the first sector
// after the volume descriptor set), with logical sectors of sectorSize
// bytes. b must have passed check; with no images there is no plan.
//
// With debian, the plan is Debian's makefs's (NetBSD's cd9660_eltorito.c
// of 2008): the Initial/Default Entry is the first image in makefs's
// order, not the first given, and each image starts as many logical
// sectors after the previous one as that one has 512-byte sectors.
func planBoot(b *Boot, sizes []int64, first uint32, sectorSize int, debian bool) (*bootPlan, error) {
	if len(b.Images) == 0 {
		return nil, nil
	}
	p := &bootPlan{sectorSize: sectorSize, catalogSector: first, debian: debian}
	// makefs counts the Validation Entry and one entry per image, not
	// the Section Headers.
	p.catalogSectors = uint32(etCeilDiv(int64(1+len(b.Images))*int64(len(catalogEntry{})), int64(sectorSize)))
	for _, i := range bootOrder(b.Images) {
		e, err := newBootEntry(b, i, sizes[i], sectorSize)
		if err != nil {
			return nil, err
		}
		if i == 0 && !debian {
			p.initial = len(p.entries)
		}
		p.entries = append(p.entries, e)
	}
	next := uint64(first) + uint64(p.catalogSectors)
	end := next
	perSector := uint64(sectorSize / partitionSectorSize)
	if debian {
		perSector = 1
	}
	for k := range p.entries {
		e := &p.entries[k]
		e.rba = uint32(next)
		next += uint64(e.count) / perSector
		end += uint64(e.count)
	}
	if end > math.MaxUint32 {
		return nil, fmt.Errorf("%w: Options.Boot.Images: the boot images end at sector %d, past 32-bit sector numbers", ErrParams, end)
	}
	p.end = uint32(end)
	return p, p.checkSystemArea()
}

// newBootEntry makes the entry of b.Images[i], an image of size bytes.
func newBootEntry(b *Boot, i int, size int64, sectorSize int) (bootEntry, error) {
	im := &b.Images[i]
	logical := etCeilDiv(size, int64(sectorSize))
	count := logical * int64(sectorSize/partitionSectorSize)
	if size < 0 || count > math.MaxUint32 {
		return bootEntry{}, fmt.Errorf("%w: Options.Boot.Images[%d].File %s: %d bytes, too large for 32-bit sector numbers", ErrParams, i, im.File, size)
	}
	e := bootEntry{
		index:    i,
		size:     size,
		system:   bootSystems[im.System],
		media:    floppyMedia[size], // etMediaNoEmulation for other sizes
		bootable: !im.NoBoot,
		segment:  im.LoadSegment,
		count:    uint32(count),
	}
	e.platform = e.system
	if im.PlatformID == "efi" {
		e.platform = etPlatformEFI
	}
	switch im.Media {
	case MediaNoEmulation:
		e.media = etMediaNoEmulation
	case MediaHardDisk:
		e.media = etMediaHardDisk
	}
	return e, nil
}

// bootOrder returns the indexes of images in the order makefs keeps them:
// it inserts each new image before the first image of another system, or
// at the head when there is none, so that images of one system stay
// together.
func bootOrder(images []BootImage) []int {
	var order []int
	for i, im := range images {
		at := 0
		for j, k := range order {
			if bootSystems[images[k].System] != bootSystems[im.System] {
				at = j
				break
			}
		}
		order = append(order, 0)
		copy(order[at+1:], order[at:])
		order[at] = i
	}
	return order
}

// checkSystemArea reports boot images whose partition entries would not
// fit in the System Area, where makefs would write them over the volume
// descriptors.
func (p *bootPlan) checkSystemArea() error {
	var mac, ppc int
	for _, e := range p.entries {
		switch e.system {
		case etPlatformMac:
			mac++
		case etPlatformPPC:
			ppc++
		}
	}
	area := systemAreaSectors * p.sectorSize
	// The APM's entries take blocks 1 to mac+3 (makefs leaves block mac+2
	// unused), the MBR's entries 16 bytes each from 1BEh, one for CHRP.
	if (mac+4)*partitionSectorSize > area || mbrPartitionTableOffset+(ppc+1)*16 > area {
		return fmt.Errorf("%w: Options.Boot.Images: %d Mac and %d powerpc images, more than the partition tables in the System Area hold (60 and 2019)", ErrParams, mac, ppc)
	}
	return nil
}

// etCeilDiv is n divided by d, rounded up, for n >= 0 and d > 0.
func etCeilDiv(n, d int64) int64 { return (n + d - 1) / d }
