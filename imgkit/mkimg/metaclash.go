package mkimg

import (
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
)

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
		if !isZero(p[i:min(i+s.secsz, uint64(len(p)))]) {
			s.nonZero[uint64(off)/s.secsz+i/s.secsz] = true
		}
	}
	return len(p), nil
}

// checkMetadataClash refuses a partition whose data, other than zeros,
// falls on a sector the scheme's metadata fills with other than zeros, as
// mkimg fails ("writing metadata: Invalid argument") for a partition an
// absolute offset put there; data over the metadata's zero sectors stays,
// as it stays in mkimg. Which sectors are zeros does not depend on the
// GUIDs, so a dry run with test-mode GUIDs finds them before the
// partitions are copied. Only an absolute offset puts a partition there.
func (l *layout) checkMetadataClash() error {
	if l.s == nil || len(l.parts) == 0 {
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
	for i := range l.parts {
		if err := l.checkClash(&l.parts[i], set); err != nil {
			return err
		}
	}
	return nil
}

// checkClash reads p's data in the sectors set holds and refuses it
// there unless it is zeros.
func (l *layout) checkClash(p *placed, set *sectorSet) error {
	var r io.ReaderAt
	switch {
	case p.bytes == 0 || !p.hasContent():
		return nil
	case p.spool != nil:
		r = p.spool
	default:
		f, err := os.Open(p.File)
		if err != nil {
			return fmt.Errorf("%w: partition %d: %s: %w", ErrPartition, p.index+1, p.File, bareError(err))
		}
		defer f.Close()
		r = f
	}
	buf := make([]byte, l.secsz)
	for _, lba := range slices.Sorted(maps.Keys(set.nonZero)) {
		if lba < p.start || lba >= p.start+p.sectors {
			continue
		}
		n, err := r.ReadAt(buf, int64((lba-p.start)*l.secsz))
		if err != nil && err != io.EOF {
			return fmt.Errorf("%w: partition %d: %w", ErrPartition, p.index+1, bareError(err))
		}
		if !isZero(buf[:n]) {
			return fmt.Errorf("%w: partition %d has data at sector %d, where the %s metadata is", ErrPartition, p.index+1, lba, l.scheme)
		}
	}
	return nil
}
