package mkimg

import (
	"errors"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/vdisk"
	"io"
	"io/fs"
	"math"
	"os"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/internal/nbopen"
	"github.com/fixturegen/fixturegen/imgkit/progress"
)

// ErrCapacity reports a disk larger than its maximum capacity (-C or
// --capacity).
var ErrCapacity = errors.New("mkimg: past the capacity")

// layout is a disk planned from Options: where each partition goes and
// how large the disk is, all in logical sectors.
type layout struct {
	// links collects the partitions linked to their files while a
	// linked container's raw disk is written (container_link.go).
	links   *linkedDisk
	linked  int      // the partitions the last raw disk linked
	rawFile *os.File // the last raw disk's temporary file (tests check its blocks)

	scheme     string
	s          *scheme // nil for a disk without a scheme
	secsz      uint64  // logical sector size
	blksz      uint64  // physical block size
	heads      uint64
	track      uint64 // sectors per track
	active     int
	testMode   bool
	slots      int // partition slots, the unused ones included
	parts      []placed
	sectors    uint64 // disk size
	minSectors uint64 // -c in sectors, rounded up; 0 for none
	maxSectors uint64 // -C in sectors, rounded up; 0 for none
	gptTable   uint64 // sectors of one GPT entry array
	bootcode   []byte // nil, or the scheme's boot code size, zero-padded
	bootSource string
	log        io.Writer    // where the -v lines go; nil without -v
	format     vdisk.Format // nil for raw
	timestamp  *int64       // -t, seconds since the epoch; nil without it
	idSeed     [32]byte     // the GUID rule's seed, once the partitions are written, when hashes (writer.go)
	contents   *contents    // the partitions' spools, closed by close

	diskGUID GUID      // Options.DiskGUID; zero when derived
	warn     io.Writer // Options.Warn; nil discards the warnings

	meter *progress.Meter // Options.Progress; nil shows nothing
}

// placed is one used partition slot with its place on the disk.
type placed struct {
	Partition
	index   int    // 0-based slot
	start   uint64 // first sector
	sectors uint64 // length in sectors before any track rounding
	bytes   uint64 // content bytes: the file's or command's size, or Size
	// spool holds the content of a command, or of a file that is not a
	// regular file, read once to its end into an unlinked temporary file;
	// nil for a regular file and an empty partition.
	spool     *os.File
	spoolRead bool // the spool was copied into the disk (spoolSource.copyTo)
	// stream holds the content of a command, or of a file that is not a
	// regular file, spooled by the container format instead
	// (vdisk.Streamer), and streamSum its digest, when hashed.
	stream     vdisk.Stream
	streamSum  *contentDigest
	streamFile *os.File // the stream's spool
}

// plan checks o and lays the disk out, as planIn does with spools in
// os.TempDir (for a raw disk in memory).
func plan(o *Options) (*layout, error) { return planIn(o, spoolPlace{}, true) }

// planIn checks o as mkimg(1) checks its command line and lays the disk
// out (place), running the partitions' commands and spooling what they
// write in spool: as the container stores them when its raw disk is
// not held in memory (rawInMemory false; streaming), else raw. The caller closes the layout,
// which closes the spools; on an error they are closed already.
func planIn(o *Options, spool spoolPlace, rawInMemory bool) (*layout, error) {
	l, err := check(o)
	if err != nil {
		return nil, err
	}
	l.contents = &contents{place: spool, dir: o.Dir, stderr: o.Stderr, meter: o.Progress, stream: l.streaming(rawInMemory)}
	if err := l.place(o.Partitions, l.contents); err != nil {
		l.close()
		return nil, err
	}
	return l, nil
}

// close closes the spools of the partitions' contents.
func (l *layout) close() {
	if l.contents != nil {
		l.contents.close()
	}
}

// check checks o as mkimg(1) checks its command line, in mkimg's order,
// and returns the layout with the geometry, the boot code and no
// partitions placed yet (place does that).
func check(o *Options) (*layout, error) {
	l := &layout{
		scheme:   strings.ToLower(o.Scheme),
		secsz:    uint64(defaultInt(o.SectorSize, 512)),
		heads:    uint64(defaultInt(o.Heads, 1)),
		track:    uint64(defaultInt(o.SectorsPerTrack, 1)),
		active:   o.Active,
		testMode: o.FreeBSDTestMode,
		diskGUID: o.DiskGUID,
		warn:     o.Warn,
		slots:    len(o.Partitions),
		meter:    o.Progress,
	}
	if o.Verbose > 0 {
		l.log = o.Log
	}
	if o.Scheme != "" {
		info, ok := schemes[l.scheme]
		if !ok {
			return nil, fmt.Errorf("%w: -s %q: want one of %s", ErrOption, o.Scheme, strings.Join(Schemes(), ", "))
		}
		l.s = info
	}
	if err := l.checkCapacity(o); err != nil {
		return nil, err
	}
	if err := l.checkGeometry(o); err != nil {
		return nil, err
	}
	if l.s != nil && l.slots > l.s.maxParts {
		return nil, fmt.Errorf("%w: %d partitions given; %s holds %d", ErrPartition, l.slots, l.scheme, l.s.maxParts)
	}
	if err := checkFormat(o.Format); err != nil {
		return nil, err
	}
	l.format, l.timestamp = lookupFormat(o.Format), o.Timestamp
	if err := l.readBootcode(o.Bootcode); err != nil {
		return nil, err
	}
	if err := l.checkGUIDs(o); err != nil {
		return nil, err
	}
	l.logHeader()
	for i, p := range o.Partitions {
		if err := l.checkPartition(i, p); err != nil {
			return nil, err
		}
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

// checkCapacity checks what mkimg checks before it lays the disk out: a
// scheme for any partition, a partition or a minimum capacity, and the
// capacities' order; it sets the capacities in sectors.
func (l *layout) checkCapacity(o *Options) error {
	switch {
	case l.s == nil && len(o.Partitions) > 0:
		return fmt.Errorf("%w: no scheme (-s) for the partitions", ErrOption)
	case len(o.Partitions) == 0 && o.MinCapacity == 0:
		return fmt.Errorf("%w: no partitions (-p), and no capacity (-c) for an empty disk", ErrOption)
	case o.MaxCapacity != 0 && o.MinCapacity > o.MaxCapacity:
		return fmt.Errorf("%w: -c %d: the minimum capacity cannot be larger than the maximum one, %d", ErrOption, o.MinCapacity, o.MaxCapacity)
	case o.MinCapacity > math.MaxInt64 || o.MaxCapacity > math.MaxInt64:
		return fmt.Errorf("%w: a capacity of more than %d bytes", ErrOption, int64(math.MaxInt64))
	}
	l.minSectors = ceilDiv(o.MinCapacity, l.secsz)
	l.maxSectors = ceilDiv(o.MaxCapacity, l.secsz)
	return nil
}

// checkGeometry checks the sector and block sizes and the simulated
// geometry, and sets the block size.
func (l *layout) checkGeometry(o *Options) error {
	if l.secsz < 512 || l.secsz&(l.secsz-1) != 0 {
		return fmt.Errorf("%w: -S %d: the logical sector size must be a power of two of at least 512", ErrOption, l.secsz)
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
	if l.s != nil && l.secsz > l.s.maxSectorSize {
		return fmt.Errorf("%w: -S %d: %s supports sectors of at most %d bytes", ErrOption, l.secsz, l.scheme, l.s.maxSectorSize)
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

// checkPartition checks slot i's type and label against the scheme, and
// that it says what fills it, as mkimg checks every partition before it
// lays out the first.
func (l *layout) checkPartition(i int, p Partition) error {
	if p.Unused {
		return nil
	}
	if alias := lower7(p.Type); !l.s.hasType(alias) {
		types := strings.Join(l.s.aliases(), ", ")
		if with := schemesWith(alias); len(with) > 0 {
			return fmt.Errorf("%w: partition %d: type %q is a %s type, not a %s one (%s types: %s)", ErrPartition, i+1, p.Type, andList(with), l.scheme, l.scheme, types)
		}
		return fmt.Errorf("%w: partition %d: type %q is not a %s type (%s types: %s)", ErrPartition, i+1, p.Type, l.scheme, l.scheme, types)
	}
	if err := l.checkLabel(i, p.Label); err != nil {
		return err
	}
	if n := btoi(p.File != "") + btoi(p.Command != "") + btoi(p.Source != nil); n > 1 {
		return fmt.Errorf("%w: partition %d: more than one of a file, a command and a Source", ErrPartition, i+1)
	}
	return nil
}

// andList joins words as "a", "a and b", "a, b and c".
func andList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// btoi is 1 for true and 0 for false.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// readBootcode reads the boot code file, which may be at most one
// 512-byte sector.
func (l *layout) readBootcode(path string) error {
	if path == "" {
		return nil
	}
	if l.s == nil || l.s.bootcode == 0 {
		return fmt.Errorf("%w: -b %s: %s takes no boot code", ErrBootcode, path, cmp(l.scheme, "a disk without a scheme"))
	}
	b, err := readAll(path)
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

// readAll reads the file path whole; a named pipe without a writer is
// refused at once (nbopen.Read), not waited on.
func readAll(path string) ([]byte, error) {
	f, err := nbopen.Read(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// cmp returns s, or alt when s is "".
func cmp(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// meta asks the scheme where sector blk goes for the case where, as
// mkimg's scheme_metadata does; without a scheme blk stays.
func (l *layout) meta(where int, blk uint64) uint64 {
	if l.s == nil {
		return blk
	}
	return l.s.metadata(l, where, blk)
}

// place lays the partitions out in slot order as mkimg does, learning
// each one's size as it comes to it (a file's by its size, a command's
// by running it, c.spoolDir holding what it wrote): a partition starts
// after the previous one, plus its relative offset, or at its absolute
// offset; then it checks that no two overlap, adds the scheme's trailing
// metadata, applies the capacities and checks that no partition shares a
// sector with the metadata.
func (l *layout) place(ps []Partition, c *contents) error {
	if l.scheme == "gpt" {
		l.gptTable = gptTableSectors(l.secsz, l.slots)
	}
	next := l.meta(metaStart, 0)
	for i, p := range ps {
		if p.Unused {
			continue
		}
		pl := placed{Partition: p, index: i}
		if err := c.resolveFile(&pl); err != nil {
			return err
		}
		blkoff := ceilDiv(pl.Offset, l.secsz)
		if pl.Absolute {
			pl.start = l.meta(metaPartAbsolute, blkoff)
		} else {
			pl.start = l.meta(metaPartBefore, next+blkoff)
		}
		l.logf("partition %d: starting block %d ... ", i+1, pl.start)
		l.parts = append(l.parts, pl)
		last := &l.parts[len(l.parts)-1]
		if err := c.size(last); err != nil {
			return err
		}
		last.sectors = ceilDiv(last.bytes, l.secsz)
		l.logPartition(last, blkoff)
		if last.start > math.MaxInt64/l.secsz || last.sectors > math.MaxInt64/l.secsz-last.start {
			return fmt.Errorf("%w: partition %d ends past %d bytes", ErrTooLarge, i+1, int64(math.MaxInt64))
		}
		next = l.meta(metaPartAfter, last.start+last.sectors)
	}
	if err := l.checkOverlaps(); err != nil {
		return err
	}
	if err := l.size(next); err != nil {
		return err
	}
	if err := l.checkReserved(); err != nil {
		return err
	}
	l.warnEmpty()
	l.warnLabels()
	l.logf("\nNumber of cylinders: %d\n", uint32(l.sectors/(l.track*l.heads)))
	return nil
}

// size sets the disk size from next, the sector after the last partition
// in slot order: the scheme's trailing metadata, then the capacities, as
// mkimg's capacity_resize applies them. Every partition must then end
// within the disk, and an MBR's within its 32-bit fields.
func (l *layout) size(next uint64) error {
	end := l.meta(metaEnd, next)
	if l.maxSectors != 0 && end > l.maxSectors {
		for _, p := range l.parts {
			if p.start+p.sectors > l.maxSectors {
				return fmt.Errorf("%w: partition %d ends at sector %d, past the capacity of %d sectors of %d bytes", ErrCapacity, p.index+1, p.start+p.sectors, l.maxSectors, l.secsz)
			}
		}
		return fmt.Errorf("%w: the disk with the %s metadata needs %d sectors, past the capacity of %d sectors of %d bytes", ErrCapacity, cmp(l.scheme, "scheme's"), end, l.maxSectors, l.secsz)
	}
	l.sectors = max(end, l.minSectors)
	if l.format != nil {
		n, err := l.format.Resize(l.params(), l.sectors)
		if err != nil {
			return err
		}
		l.sectors = n
	}
	if l.sectors > math.MaxInt64/l.secsz {
		return fmt.Errorf("%w: %d sectors of %d bytes", ErrTooLarge, l.sectors, l.secsz)
	}
	for _, p := range l.parts {
		if p.start+p.sectors > l.sectors {
			return fmt.Errorf("%w: partition %d ends at sector %d, past the end of the disk at sector %d (a later partition's offset put the end before it)", ErrPartition, p.index+1, p.start+p.sectors, l.sectors)
		}
		if (l.scheme == "mbr" || l.scheme == "ebr") && p.start+l.roundTrack(p.sectors) > math.MaxUint32 {
			return fmt.Errorf("%w: partition %d ends past sector 2^32, beyond an %s's 32-bit fields", ErrTooLarge, p.index+1, strings.ToUpper(l.scheme))
		}
	}
	if l.scheme == "bsd" && l.sectors > math.MaxUint32 {
		return fmt.Errorf("%w: %d sectors, beyond a BSD disklabel's 32-bit fields", ErrTooLarge, l.sectors)
	}
	return nil
}

// checkOverlaps refuses two partitions that share a sector, naming both
// by their slot, or an empty partition that starts inside another, as
// mkimg's mkimg_validate does for partitions placed by absolute offsets.
// Unlike mkimg's check it also finds a partition that holds another
// whole, and it does not depend on their order.
func (l *layout) checkOverlaps() error {
	for i := range l.parts {
		for j := i + 1; j < len(l.parts); j++ {
			a, b := &l.parts[i], &l.parts[j]
			if !overlap(a, b) && !overlap(b, a) {
				continue
			}
			if b.sectors == 0 {
				a, b = b, a
			}
			if a.sectors == 0 {
				return fmt.Errorf("%w: partition %d is empty (0 bytes) at sector %d, inside partition %d (%s); give it a size, or leave its slot unused (-p -)", ErrPartition,
					a.index+1, a.start, b.index+1, sectorRange(b.start, b.start+b.sectors))
			}
			return fmt.Errorf("%w: partition %d (%s) overlaps partition %d (%s)", ErrPartition,
				a.index+1, sectorRange(a.start, a.start+a.sectors), b.index+1, sectorRange(b.start, b.start+b.sectors))
		}
	}
	return nil
}

// overlap reports whether a starts inside b, or b starts inside a
// non-empty a.
func overlap(a, b *placed) bool {
	aEnd, bEnd := a.start+a.sectors, b.start+b.sectors
	return (a.start >= b.start && a.start < bEnd) || (a.sectors > 0 && b.start > a.start && b.start < aEnd)
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

// ceilDiv returns a/b rounded up, for every a.
func ceilDiv(a, b uint64) uint64 {
	q := a / b
	if a%b != 0 {
		q++
	}
	return q
}
