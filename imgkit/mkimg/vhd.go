package mkimg

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
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

// ErrVHD reports a VHD the reader cannot open: a differencing disk, or a
// footer or dynamic header that fails its checks.
var ErrVHD = errors.New("mkimg: not a VHD the package reads")

func init() {
	linkedFormats["vhd"], linkedFormats["vhdf"] = true, true
	registerFormat("vhd", vhdDynamicResize, vhdDynamicContainer, vhdMatch, vhdOpen)
	registerFormat("vhdf", vhdFixedResize, vhdFixedContainer, nil, nil)
}

// vhdDynamicResize rounds the disk up to its CHS geometry, as mkimg's
// vhd_dyn_resize does (the size in logical sectors, truncated).
func vhdDynamicResize(l *layout, sectors uint64) (uint64, error) {
	size, err := l.vhdRoundedSize(sectors)
	if err != nil {
		return 0, err
	}
	return size / l.secsz, nil
}

// vhdFixedResize rounds the disk up to its CHS geometry and then to a
// whole MiB, as mkimg's vhd_fix_resize does for Azure.
func vhdFixedResize(l *layout, sectors uint64) (uint64, error) {
	size, err := l.vhdRoundedSize(sectors)
	if err != nil {
		return 0, err
	}
	size = (size + 1<<20 - 1) &^ (1<<20 - 1)
	if size > vhdMaxSize {
		return 0, l.vhdTooLarge(size)
	}
	return size / l.secsz, nil
}

// vhdRoundedSize checks the disk of sectors against VHD's limits and -t,
// and returns its size in bytes rounded up to the CHS geometry.
func (l *layout) vhdRoundedSize(sectors uint64) (uint64, error) {
	if sectors > vhdMaxSize/l.secsz {
		return 0, l.vhdTooLarge(sectors * l.secsz)
	}
	if _, err := l.vhdTimeStamp(); err != nil {
		return 0, err
	}
	size := vhdRoundCHS(sectors*l.secsz, l.heads, l.track)
	if size > vhdMaxSize {
		return 0, l.vhdTooLarge(size)
	}
	return size, nil
}

// vhdTooLarge is the error for a disk of size bytes past VHD's limit.
func (l *layout) vhdTooLarge(size uint64) error {
	return fmt.Errorf("%w: -f %s: a disk of %d bytes is past VHD's 2 TiB limit (2040 GiB, %d bytes)", ErrTooLarge, l.format.name, size, uint64(vhdMaxSize))
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
func (l *layout) vhdFooterGeometry(size uint64) (cyl uint16, heads, track uint8) {
	ncyls := uint32(l.sectors / (l.track * l.heads))
	if vhdCommandLineGeometry(l.heads, l.track) && ncyls < 65536 {
		c := uint64(ncyls)
		if c == 0 {
			c = size / vhdSectorSize / (l.heads * l.track)
		}
		return uint16(c), uint8(l.heads), uint8(l.track)
	}
	c, h, s := vhdStandardGeometry(size / vhdSectorSize)
	return uint16(c), uint8(h), uint8(s)
}

// vhdTimeStamp returns the footer's Time Stamp, seconds since 2000-01-01
// 00:00:00 UTC: mkimg's fixed 0x01234567 with -y, -t's time otherwise,
// and 0 (the VHD epoch itself) without either, never the clock. A -t
// time the 32-bit field cannot hold is refused.
func (l *layout) vhdTimeStamp() (uint32, error) {
	switch {
	case l.testMode:
		return vhdTestTimeStamp, nil
	case l.timestamp == nil:
		return 0, nil
	}
	t := *l.timestamp - vhdEpoch
	if t < 0 || t > math.MaxUint32 {
		return 0, fmt.Errorf("%w: -t %d: a VHD's Time Stamp holds times from 2000-01-01 to 2136-02-07 UTC", ErrOption, *l.timestamp)
	}
	return uint32(t), nil
}

// containerUUID returns the UUID a container format draws for the disk
// (VHD's Unique Id, VHDX's Virtual Disk ID): in FreeBSD's test mode
// mkimg's next counter value, after the GPT's partitions' and disk's;
// otherwise derivedGUID(l.idSeed, role, 0).
func (l *layout) containerUUID(role string) GUID {
	if l.testMode {
		n := 1
		if l.scheme == "gpt" {
			n += len(l.parts) + 1
		}
		return counterGUID(byte(n))
	}
	return derivedGUID(l.idSeed, role, 0)
}

// vhdFooter returns the footer of the disk of size bytes with diskType
// and dataOffset, as mkimg's vhd_make_footer fills it in. The Unique Id
// is stored as mkimg stores a UUID, its first three fields
// little-endian.
func (l *layout) vhdFooter(size uint64, diskType uint32, dataOffset uint64) *vhdFooter {
	var f vhdFooter
	be := binary.BigEndian
	copy(f.cookie(), vhdFooterCookie)
	be.PutUint32(f.features(), vhdFeaturesReserved)
	be.PutUint32(f.fileFormatVersion(), vhdVersion)
	be.PutUint64(f.dataOffset(), dataOffset)
	ts, _ := l.vhdTimeStamp() // checked by the resize hook
	be.PutUint32(f.timeStamp(), ts)
	copy(f.creatorApplication(), vhdCreatorApplication)
	be.PutUint32(f.creatorVersion(), vhdCreatorVersion)
	copy(f.creatorHostOS(), vhdCreatorHostOS)
	be.PutUint64(f.originalSize(), size)
	be.PutUint64(f.currentSize(), size)
	cyl, heads, track := l.vhdFooterGeometry(size)
	g := f.diskGeometry()
	be.PutUint16(g[0:2], cyl)
	g[2], g[3] = heads, track
	be.PutUint32(f.diskType(), diskType)
	l.containerUUID("vhd").encode(f.uniqueId())
	be.PutUint32(f.checksum(), vhdChecksum(f[:]))
	return &f
}

// vhdFixedContainer lays a fixed VHD out: the raw disk and its footer.
func vhdFixedContainer(l *layout, disk *rawDisk) (int64, func(*bcache.Image) error, error) {
	footer := l.vhdFooter(uint64(disk.size), vhdDiskTypeFixed, math.MaxUint64)
	write := func(im *bcache.Image) error {
		if err := disk.copyRun(im, 0, 0, disk.size); err != nil {
			return err
		}
		_, err := im.WriteAt(footer[:], disk.size)
		return err
	}
	return disk.size + vhdSectorSize, write, nil
}

// vhdDynamicContainer lays a dynamic VHD out as mkimg's vhd_dyn_write
// does: the footer's copy, the dynamic header, the BAT, then for each
// 2 MiB block holding data its sector bitmap (all ones) and its bytes,
// the zeros that round the disk up to whole blocks, and the footer. A
// block that would start past the BAT's 32-bit reach is refused.
func vhdDynamicContainer(l *layout, disk *rawDisk) (int64, func(*bcache.Image) error, error) {
	rawsz := uint64(disk.size)
	imgsz := (rawsz + vhdBlockSize - 1) &^ (vhdBlockSize - 1)
	entries := imgsz / vhdBlockSize
	batsz := (entries*4 + vhdSectorSize - 1) &^ (vhdSectorSize - 1)
	footer := l.vhdFooter(rawsz, vhdDiskTypeDynamic, vhdSectorSize)

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
			return 0, nil, fmt.Errorf("%w: -f vhd: the data of %d bytes reaches past the 2 TiB a dynamic VHD's BAT can address", ErrTooLarge, rawsz)
		}
		be.PutUint32(bat[4*e:], uint32(sector))
		sector += vhdBlockSize/vhdSectorSize + 1
		end += vhdSectorSize + min(vhdBlockSize, disk.size-int64(e)*vhdBlockSize)
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
			n := min(vhdBlockSize, disk.size-src)
			if err := disk.copyRun(im, off+vhdSectorSize, src, n); err != nil {
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
func vhdUsedBlocks(disk *rawDisk, entries uint64) ([]bool, error) {
	used := make([]bool, entries)
	err := disk.dataUnits(vhdBlockSize, disk.scanning(), func(first, n int64) error {
		for e := first; e < first+n; e++ {
			used[e] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if whole := disk.size / vhdBlockSize; uint64(whole) < entries {
		ok, err := disk.hasData(whole*vhdBlockSize, disk.size-whole*vhdBlockSize)
		if err != nil {
			return nil, err
		}
		used[whole] = ok
	}
	return used, nil
}
