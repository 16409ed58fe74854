package mkimg

import (
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/internal/diskio"
	"io"
	"maps"
	"slices"
)

// metaRun is a run of sectors, [start, end), that a scheme's metadata
// holds and no partition may share: a partition there would hold the
// table that describes it, which the scheme's specification forbids and
// its tools report (sgdisk: "Main partition table overlaps the first
// partition").
type metaRun struct {
	start, end uint64
	// what names the metadata, as a message says it.
	what string
	// leading marks the metadata before the first partition, whose
	// message says where a partition may start instead.
	leading bool
}

// inRun returns the run of runs that holds sector s, or nil.
func inRun(runs []metaRun, s uint64) *metaRun {
	for i := range runs {
		if runs[i].start <= s && s < runs[i].end {
			return &runs[i]
		}
	}
	return nil
}

// checkReserved refuses a partition of any kind (a file, a command, a
// Source or an empty one, placed by an absolute offset or after a
// -c capacity moved the trailing metadata) that shares a sector with the
// scheme's metadata (scheme.reserved), once the disk's size, and so the
// place of a GPT's backup, is known. An empty partition has no sectors:
// it lies before the sector at its start, and is refused inside the
// metadata, after a run's first sector or at sector 0, as an empty
// partition inside another partition is (checkOverlaps); at a run's
// first sector, where an empty last partition goes (a GPT's backup array
// follows it, or an EBR), it is not.
func (l *layout) checkReserved() error {
	if l.s == nil || l.s.reserved == nil {
		return nil
	}
	runs, err := l.s.reserved(l)
	if err != nil {
		return err
	}
	for i := range l.parts {
		p := &l.parts[i]
		if p.sectors == 0 {
			if r := inRun(runs, p.start); r != nil && (p.start == 0 || p.start > r.start) {
				return fmt.Errorf("%w: partition %d is empty (0 bytes) at sector %d, inside %s (%s)%s", ErrPartition,
					p.index+1, p.start, r.what, sectorRange(r.start, r.end), l.startHint(r))
			}
			continue
		}
		for j := range runs {
			if r := &runs[j]; p.start < r.end && r.start < p.start+p.sectors {
				return fmt.Errorf("%w: partition %d (%s) overlaps %s (%s)%s", ErrPartition,
					p.index+1, sectorRange(p.start, p.start+p.sectors), r.what, sectorRange(r.start, r.end), l.startHint(r))
			}
		}
	}
	return nil
}

// startHint says, for the metadata before the first partition, the first
// sector and byte offset a partition may take, as its offset is aligned.
func (l *layout) startHint(r *metaRun) string {
	if !r.leading {
		return ""
	}
	first := l.meta(metaStart, 0)
	return fmt.Sprintf("; a partition may start at sector %d (offset %d) or after", first, first*l.secsz)
}

// sectorRange names the sectors [start, end) in a message.
func sectorRange(start, end uint64) string {
	if end == start+1 {
		return fmt.Sprintf("sector %d", start)
	}
	return fmt.Sprintf("sectors %d to %d", start, end-1)
}

// sectorSet records which sectors a write of the scheme's metadata makes
// other than zeros; it is the io.WriterAt of a dry run of the scheme's
// write hook.
type sectorSet struct {
	secsz   uint64
	nonZero map[uint64]bool
}

// WriteAt records the non-zero sectors of p, written at off.
func (s *sectorSet) WriteAt(p []byte, off int64) (int, error) {
	for i := uint64(0); i < uint64(len(p)); i += s.secsz {
		if !diskio.IsZero(p[i:min(i+s.secsz, uint64(len(p)))]) {
			s.nonZero[uint64(off)/s.secsz+i/s.secsz] = true
		}
	}
	return len(p), nil
}

// checkMetadataClash refuses, in a scheme whose partitions may hold its
// metadata (bsd's boot area, vtoc8's label in sector 0: no
// scheme.reserved), a partition whose data, read back from the disk
// where its contents were copied, is other than zeros in a sector the
// metadata fills with other than zeros, which would overwrite the data;
// over the metadata's zero sectors the data stays, as in mkimg, and a
// file system that leaves its first sectors to the boot code (UFS) fits
// there. Which sectors are zeros does not depend on the GUIDs, so a dry
// run with test-mode GUIDs finds them. Only an absolute offset puts a
// partition there; any kind of contents is checked, a builder's too.
func (l *layout) checkMetadataClash(disk io.ReaderAt) error {
	if l.s == nil || l.s.reserved != nil {
		return nil
	}
	clashing := false
	for _, p := range l.parts {
		clashing = clashing || (p.Absolute && p.bytes > 0 && p.hasContent()) // the others follow the leading metadata
	}
	if !clashing {
		return nil
	}
	set := &sectorSet{secsz: l.secsz, nonZero: map[uint64]bool{}}
	dry := *l
	dry.testMode = true
	if err := l.s.write(&dry, set, dry.guids()); err != nil {
		return err
	}
	buf := make([]byte, l.secsz)
	for _, p := range l.parts {
		if !p.Absolute || p.bytes == 0 || !p.hasContent() {
			continue
		}
		for _, lba := range slices.Sorted(maps.Keys(set.nonZero)) {
			if lba < p.start || lba >= p.start+p.sectors {
				continue
			}
			if _, err := disk.ReadAt(buf, int64(lba*l.secsz)); err != nil {
				return fmt.Errorf("%w: partition %d: %w", ErrPartition, p.index+1, err)
			}
			if !diskio.IsZero(buf) {
				return fmt.Errorf("%w: partition %d has data at sector %d, where the %s metadata goes; its data may cover the metadata's sectors only where it is zeros", ErrPartition, p.index+1, lba, l.scheme)
			}
		}
	}
	return nil
}
