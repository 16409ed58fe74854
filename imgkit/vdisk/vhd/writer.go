package vhd

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/vdisk"
	"github.com/fixturegen/fixturegen/imgkit/vdisk/internal/uuid"
	"math"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
)

// VHD's limits and CHS constants.
const (
	// vhdMaxSize is the largest disk the package writes as a VHD: 2040
	// GiB (0xff000000 sectors), VHD's 2 TiB limit as Hyper-V and qemu-img
	// enforce it, within the reach of the BAT's 32-bit sector offsets.
	vhdMaxSize = 0xff000000 * vhdSectorSize
	// vhdMaxCHSSectors is the most 512-byte sectors a Disk Geometry can
	// describe (65535 cylinders, 16 heads, 255 sectors per track).
	vhdMaxCHSSectors = 65535 * 16 * 255
)

// Resize rounds the disk up to its CHS geometry, as mkimg's
// vhd_dyn_resize does (the size in logical sectors, truncated), and for
// a fixed VHD then to a whole MiB, as mkimg's vhd_fix_resize does for
// Azure.
func (f Format) Resize(p *vdisk.Params, sectors uint64) (uint64, error) {
	size, err := f.roundedSize(p, sectors)
	if err != nil {
		return 0, err
	}
	if f.Fixed {
		size = (size + 1<<20 - 1) &^ (1<<20 - 1)
		if size > vhdMaxSize {
			return 0, f.tooLarge(size)
		}
	}
	return size / p.SectorSize, nil
}

// Write lays the VHD out (writeFixed, writeDynamic).
func (f Format) Write(p *vdisk.Params, disk *vdisk.Disk) (int64, func(*bcache.Image) error, error) {
	if f.Fixed {
		return writeFixed(p, disk)
	}
	return writeDynamic(p, disk)
}

// roundedSize checks the disk of sectors against VHD's limits and -t,
// and returns its size in bytes rounded up to the CHS geometry.
func (f Format) roundedSize(p *vdisk.Params, sectors uint64) (uint64, error) {
	if sectors > vhdMaxSize/p.SectorSize {
		return 0, f.tooLarge(sectors * p.SectorSize)
	}
	if _, err := vhdTimeStamp(p); err != nil {
		return 0, err
	}
	size := vhdRoundCHS(sectors*p.SectorSize, p.Heads, p.SectorsPerTrack)
	if size > vhdMaxSize {
		return 0, f.tooLarge(size)
	}
	return size, nil
}

// tooLarge is the error for a disk of size bytes past VHD's limit.
func (f Format) tooLarge(size uint64) error {
	return fmt.Errorf("%w: -f %s: a disk of %d bytes is past VHD's 2 TiB limit (2040 GiB, %d bytes)", vdisk.ErrTooLarge, f.Name(), size, uint64(vhdMaxSize))
}

// vhdCommandLineGeometry reports whether mkimg takes the Disk Geometry's
// heads and sectors per track from -H and -T: both must be 2 to 255.
func vhdCommandLineGeometry(heads, track uint64) bool {
	return heads > 1 && heads < 256 && track > 1 && track < 256
}

// vhdRoundCHS returns size (bytes) rounded up to a whole number of
// cylinders of the geometry mkimg's vhd_geometry gives it: -H and -T's
// heads and sectors when both are 2 to 255, otherwise the specification's
// algorithm (vhdStandardGeometry), looping as mkimg's vhd_resize does
// because the geometry depends on the size. Where mkimg's loop never ends
// (more than 65535 cylinders of -H by -T, or a disk past the CHS maximum
// of about 127.5 GiB) the package takes the specification's geometry, and
// past its maximum keeps size as it is, Current Size then exceeding what
// the geometry describes, as the specification allows.
func vhdRoundCHS(size, heads, track uint64) uint64 {
	if vhdCommandLineGeometry(heads, track) {
		cyl := size / vhdSectorSize / (heads * track)
		if (size/vhdSectorSize)%(heads*track) != 0 {
			cyl++
		}
		if cyl <= 65535 {
			return cyl * heads * track * vhdSectorSize
		}
	}
	if size > vhdMaxCHSSectors*vhdSectorSize {
		return size
	}
	newsz := size
	for range 1 << 20 {
		c, h, s := vhdStandardGeometry(newsz / vhdSectorSize)
		newsz = c * h * s * vhdSectorSize
		if newsz >= size {
			return newsz
		}
		newsz += h * s * vhdSectorSize
	}
	return size // not reached: the loop ends within a few rounds
}

// vhdStandardGeometry is the Disk Geometry the VHD specification's
// appendix computes for a disk of sectors 512-byte sectors, with mkimg's
// 8-bit heads; cylinders stop at 65535.
func vhdStandardGeometry(sectors uint64) (cyl, heads, track uint64) {
	sectors = min(sectors, 65536*16*255)
	if sectors >= 65535*16*63 {
		return min(sectors/(16*255), 65535), 16, 255
	}
	track = 17
	cth := sectors / 17
	heads = uint64(uint8((cth + 1023) / 1024))
	heads = max(heads, 4)
	if cth >= heads*1024 || heads > 16 {
		heads, track = 16, 31
		cth = sectors / 31
	}
	if cth >= heads*1024 {
		heads, track = 16, 63
		cth = sectors / 63
	}
	return cth / heads, heads, track
}

// vhdFooterGeometry returns the Disk Geometry mkimg's footer gives the
// finished disk of size bytes: with -H and -T of 2 to 255 and fewer than
// 65536 cylinders of them (counted in logical sectors, as mkimg counts
// them), those cylinders (16 bits of them) and -H and -T; otherwise the
// specification's geometry.
func vhdFooterGeometry(p *vdisk.Params, size uint64) (cyl uint16, heads, track uint8) {
	ncyls := uint32(p.Sectors / (p.SectorsPerTrack * p.Heads))
	if vhdCommandLineGeometry(p.Heads, p.SectorsPerTrack) && ncyls < 65536 {
		c := uint64(ncyls)
		if c == 0 {
			c = size / vhdSectorSize / (p.Heads * p.SectorsPerTrack)
		}
		return uint16(c), uint8(p.Heads), uint8(p.SectorsPerTrack)
	}
	c, h, s := vhdStandardGeometry(size / vhdSectorSize)
	return uint16(c), uint8(h), uint8(s)
}

// vhdTimeStamp returns the footer's Time Stamp, seconds since 2000-01-01
// 00:00:00 UTC: mkimg's fixed 0x01234567 with -y, -t's time otherwise,
// and 0 (the VHD epoch itself) without either, never the clock. A -t
// time the 32-bit field cannot hold is refused.
func vhdTimeStamp(p *vdisk.Params) (uint32, error) {
	switch {
	case p.FreeBSDTestMode:
		return vhdTestTimeStamp, nil
	case p.Timestamp == nil:
		return 0, nil
	}
	t := *p.Timestamp - vhdEpoch
	if t < 0 || t > math.MaxUint32 {
		return 0, fmt.Errorf("%w: -t %d: a VHD's Time Stamp holds times from 2000-01-01 to 2136-02-07 UTC", vdisk.ErrOption, *p.Timestamp)
	}
	return uint32(t), nil
}

// newFooter returns the footer of the disk of size bytes with diskType
// and dataOffset, as mkimg's vhd_make_footer fills it in. The Unique Id
// is stored as mkimg stores a UUID, its first three fields
// little-endian.
func newFooter(p *vdisk.Params, size uint64, diskType uint32, dataOffset uint64) *vhdFooter {
	var f vhdFooter
	be := binary.BigEndian
	copy(f.cookie(), vhdFooterCookie)
	be.PutUint32(f.features(), vhdFeaturesReserved)
	be.PutUint32(f.fileFormatVersion(), vhdVersion)
	be.PutUint64(f.dataOffset(), dataOffset)
	ts, _ := vhdTimeStamp(p) // checked by the resize hook
	be.PutUint32(f.timeStamp(), ts)
	copy(f.creatorApplication(), vhdCreatorApplication)
	be.PutUint32(f.creatorVersion(), vhdCreatorVersion)
	copy(f.creatorHostOS(), vhdCreatorHostOS)
	be.PutUint64(f.originalSize(), size)
	be.PutUint64(f.currentSize(), size)
	cyl, heads, track := vhdFooterGeometry(p, size)
	g := f.diskGeometry()
	be.PutUint16(g[0:2], cyl)
	g[2], g[3] = heads, track
	be.PutUint32(f.diskType(), diskType)
	uuid.UUID(p.ID("vhd")).Encode(f.uniqueId())
	be.PutUint32(f.checksum(), vhdChecksum(f[:]))
	return &f
}

// writeFixed lays a fixed VHD out: the raw disk and its footer.
func writeFixed(p *vdisk.Params, disk *vdisk.Disk) (int64, func(*bcache.Image) error, error) {
	footer := newFooter(p, uint64(disk.Size()), vhdDiskTypeFixed, math.MaxUint64)
	write := func(im *bcache.Image) error {
		if err := disk.CopyTo(im, 0, 0, disk.Size()); err != nil {
			return err
		}
		_, err := im.WriteAt(footer[:], disk.Size())
		return err
	}
	return disk.Size() + vhdSectorSize, write, nil
}

// writeDynamic lays a dynamic VHD out as mkimg's vhd_dyn_write
// does: the footer's copy, the dynamic header, the BAT, then for each
// 2 MiB block holding data its sector bitmap (all ones) and its bytes,
// the zeros that round the disk up to whole blocks, and the footer. A
// block that would start past the BAT's 32-bit reach is refused.
func writeDynamic(p *vdisk.Params, disk *vdisk.Disk) (int64, func(*bcache.Image) error, error) {
	rawsz := uint64(disk.Size())
	imgsz := (rawsz + vhdBlockSize - 1) &^ (vhdBlockSize - 1)
	entries := imgsz / vhdBlockSize
	batsz := (entries*4 + vhdSectorSize - 1) &^ (vhdSectorSize - 1)
	footer := newFooter(p, rawsz, vhdDiskTypeDynamic, vhdSectorSize)

	var h vhdDynamicHeader
	be := binary.BigEndian
	copy(h.cookie(), vhdHeaderCookie)
	be.PutUint64(h.dataOffset(), math.MaxUint64)
	be.PutUint64(h.tableOffset(), vhdSectorSize+uint64(len(h)))
	be.PutUint32(h.headerVersion(), vhdVersion)
	be.PutUint32(h.maxTableEntries(), uint32(entries))
	be.PutUint32(h.blockSize(), vhdBlockSize)
	be.PutUint32(h.checksum(), vhdChecksum(h[:]))

	bat := bytes.Repeat([]byte{0xff}, int(batsz))
	used, err := vhdUsedBlocks(disk, entries)
	if err != nil {
		return 0, nil, err
	}
	sector := (vhdSectorSize + uint64(len(h)) + batsz) / vhdSectorSize
	end := int64(sector * vhdSectorSize) // where the footer goes
	for e, ok := range used {
		if !ok {
			continue
		}
		if sector > math.MaxUint32 {
			return 0, nil, fmt.Errorf("%w: -f vhd: the data of %d bytes reaches past the 2 TiB a dynamic VHD's BAT can address", vdisk.ErrTooLarge, rawsz)
		}
		be.PutUint32(bat[4*e:], uint32(sector))
		sector += vhdBlockSize/vhdSectorSize + 1
		end += vhdSectorSize + min(vhdBlockSize, disk.Size()-int64(e)*vhdBlockSize)
	}
	// mkimg writes the zeros that round a partial last block up after
	// the blocks, whether that block holds data or not.
	end += int64(imgsz - rawsz)
	write := func(im *bcache.Image) error {
		for _, w := range []struct {
			b   []byte
			off int64
		}{{footer[:], 0}, {h[:], vhdSectorSize}, {bat, vhdSectorSize + int64(len(h))}} {
			if _, err := im.WriteAt(w.b, w.off); err != nil {
				return err
			}
		}
		bitmap := bytes.Repeat([]byte{0xff}, vhdSectorSize)
		off := int64(vhdSectorSize+len(h)) + int64(batsz)
		for e, ok := range used {
			if !ok {
				continue
			}
			if _, err := im.WriteAt(bitmap, off); err != nil {
				return err
			}
			src := int64(e) * vhdBlockSize
			n := min(vhdBlockSize, disk.Size()-src)
			if err := disk.CopyTo(im, off+vhdSectorSize, src, n); err != nil {
				return err
			}
			off += vhdSectorSize + n
		}
		_, err := im.WriteAt(footer[:], end)
		return err
	}
	return end + vhdSectorSize, write, nil
}

// vhdUsedBlocks reports, for each of the entries 2 MiB blocks of the
// disk, whether it holds data (mkimg's image_data of the block): the
// whole blocks through dataUnits, which skips the disk's holes unread,
// and a partial last block through hasData.
func vhdUsedBlocks(disk *vdisk.Disk, entries uint64) ([]bool, error) {
	used := make([]bool, entries)
	err := disk.DataUnits(vhdBlockSize, disk.Scanning(), func(first, n int64) error {
		for e := first; e < first+n; e++ {
			used[e] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if whole := disk.Size() / vhdBlockSize; uint64(whole) < entries {
		ok, err := disk.HasData(whole*vhdBlockSize, disk.Size()-whole*vhdBlockSize)
		if err != nil {
			return nil, err
		}
		used[whole] = ok
	}
	return used, nil
}
