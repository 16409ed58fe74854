package mkimg

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"strings"
)

// layout is a disk planned from Options: where each partition goes and
// how large the disk is, all in logical sectors.
type layout struct {
	scheme     string
	s          *scheme
	secsz      uint64 // logical sector size
	blksz      uint64 // physical block size
	heads      uint64
	track      uint64 // sectors per track
	active     int
	testMode   bool
	slots      int // partition slots, the unused ones included
	parts      []placed
	sectors    uint64 // disk size
	gptTable   uint64 // sectors of one GPT entry array
	bootcode   []byte // nil, or the scheme's boot code size, zero-padded
	bootSource string
}

// placed is one used partition slot with its place on the disk.
type placed struct {
	Partition
	index   int    // 0-based slot
	start   uint64 // first sector
	sectors uint64 // length in sectors before any track rounding
	bytes   uint64 // content bytes: the file's size, or Size
}

// plan checks o as mkimg(1) checks its command line and lays the disk
// out: partitions one after another in slot order, each starting where
// the scheme's alignment allows, the disk ending after the scheme's
// trailing metadata.
func plan(o *Options) (*layout, error) {
	l := &layout{
		scheme:   strings.ToLower(o.Scheme),
		secsz:    uint64(defaultInt(o.SectorSize, 512)),
		heads:    uint64(defaultInt(o.Heads, 1)),
		track:    uint64(defaultInt(o.SectorsPerTrack, 1)),
		active:   o.Active,
		testMode: o.FreeBSDTestMode,
		slots:    len(o.Partitions),
	}
	info, ok := schemes[l.scheme]
	if !ok {
		return nil, fmt.Errorf("%w: -s %q: want one of %s", ErrOption, o.Scheme, strings.Join(Schemes(), ", "))
	}
	l.s = info
	if len(o.Partitions) == 0 {
		return nil, fmt.Errorf("%w: no partitions (-p)", ErrOption)
	}
	if err := l.checkGeometry(o); err != nil {
		return nil, err
	}
	if l.slots > info.maxParts {
		return nil, fmt.Errorf("%w: %d partitions given; %s holds %d", ErrPartition, l.slots, l.scheme, info.maxParts)
	}
	for i, p := range o.Partitions {
		if p.Unused {
			continue
		}
		if !info.hasType(lower7(p.Type)) {
			return nil, fmt.Errorf("%w: partition %d: type %q is not a %s type", ErrPartition, i+1, p.Type, l.scheme)
		}
		if len(p.Label) > info.labelMax {
			if info.labelMax == 0 {
				return nil, fmt.Errorf("%w: partition %d: %s partitions have no labels", ErrPartition, i+1, l.scheme)
			}
			return nil, fmt.Errorf("%w: partition %d: label %q is longer than %d bytes", ErrPartition, i+1, p.Label, info.labelMax)
		}
	}
	if err := l.readBootcode(o.Bootcode); err != nil {
		return nil, err
	}
	if err := l.place(o.Partitions); err != nil {
		return nil, err
	}
	return l, nil
}

// defaultInt returns v, or def when v is 0.
func defaultInt(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// checkGeometry checks the sector and block sizes and the simulated
// geometry, and sets the block size.
func (l *layout) checkGeometry(o *Options) error {
	if l.secsz < 512 || l.secsz&(l.secsz-1) != 0 {
		return fmt.Errorf("%w: -S %d: the logical sector size must be a power of two of at least 512", ErrOption, l.secsz)
	}
	if l.secsz > l.s.maxSectorSize {
		return fmt.Errorf("%w: -S %d: %s supports sectors of at most %d bytes", ErrOption, l.secsz, l.scheme, l.s.maxSectorSize)
	}
	l.blksz = uint64(o.BlockSize)
	switch {
	case o.BlockSize < 0 || (o.BlockSize > 0 && (o.BlockSize < 512 || l.blksz&(l.blksz-1) != 0)):
		return fmt.Errorf("%w: -P %d: the physical block size must be a power of two of at least 512", ErrOption, o.BlockSize)
	case o.BlockSize == 0:
		l.blksz = l.secsz
	case l.blksz < l.secsz:
		return fmt.Errorf("%w: -P %d: the physical block size cannot be smaller than the sector size %d", ErrOption, l.blksz, l.secsz)
	}
	if l.heads < 1 || l.heads > 255 {
		return fmt.Errorf("%w: -H %d: want 1 to 255 heads", ErrOption, l.heads)
	}
	if l.track < 1 || l.track > 63 {
		return fmt.Errorf("%w: -T %d: want 1 to 63 sectors per track", ErrOption, l.track)
	}
	if o.Active < 0 || o.Active > 100 {
		return fmt.Errorf("%w: -a %d: want 1 to 100", ErrOption, o.Active)
	}
	return nil
}

// readBootcode reads the boot code file, which may be at most one
// 512-byte sector.
func (l *layout) readBootcode(path string) error {
	if path == "" {
		return nil
	}
	if l.s.bootcode == 0 {
		return fmt.Errorf("%w: -b %s: %s takes no boot code", ErrBootcode, path, l.scheme)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%w: -b %s: %w", ErrBootcode, path, bareError(err))
	}
	if len(b) > l.s.bootcode {
		return fmt.Errorf("%w: -b %s: %d bytes; %s boot code is at most %d", ErrBootcode, path, len(b), l.scheme, l.s.bootcode)
	}
	l.bootcode = make([]byte, l.s.bootcode)
	copy(l.bootcode, b)
	l.bootSource = path
	return nil
}

// place gives each used slot its start and size and sets the disk size.
func (l *layout) place(ps []Partition) error {
	if l.scheme == "gpt" {
		l.gptTable = gptTableSectors(l.secsz, l.slots)
	}
	next := l.s.metadata(l, metaStart, 0)
	for i, p := range ps {
		if p.Unused {
			continue
		}
		n, err := sourceSize(&p)
		if err != nil {
			return fmt.Errorf("%w: partition %d: %w", ErrPartition, i+1, err)
		}
		start := l.s.metadata(l, metaPartBefore, next)
		pl := placed{Partition: p, index: i, start: start, sectors: ceilDiv(n, l.secsz), bytes: n}
		l.parts = append(l.parts, pl)
		next = l.s.metadata(l, metaPartAfter, start+pl.sectors)
	}
	l.sectors = l.s.metadata(l, metaEnd, next)
	if l.sectors > math.MaxInt64/l.secsz {
		return fmt.Errorf("%w: %d sectors of %d bytes", ErrTooLarge, l.sectors, l.secsz)
	}
	if l.scheme == "mbr" {
		for _, p := range l.parts {
			if p.start+l.roundTrack(p.sectors) > math.MaxUint32 {
				return fmt.Errorf("%w: partition %d ends past sector 2^32, beyond an MBR's 32-bit fields", ErrTooLarge, p.index+1)
			}
		}
	}
	return nil
}

// roundBlock rounds n sectors up to whole physical blocks.
func (l *layout) roundBlock(n uint64) uint64 {
	b := l.blksz / l.secsz
	return (n + b - 1) &^ (b - 1)
}

// roundTrack rounds n sectors up to whole tracks.
func (l *layout) roundTrack(n uint64) uint64 {
	if r := n % l.track; r != 0 {
		return n + l.track - r
	}
	return n
}

// bareError returns the cause of a *fs.PathError, whose message would
// repeat the operation and path the caller names itself.
func bareError(err error) error {
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ceilDiv returns a/b rounded up.
func ceilDiv(a, b uint64) uint64 { return (a + b - 1) / b }
