package mkimg

import "fmt"

// logf writes one piece of mkimg -v's report to l.log, if any.
func (l *layout) logf(format string, args ...any) {
	if l.log != nil {
		fmt.Fprintf(l.log, format, args...)
	}
}

// logHeader writes the geometry lines mkimg -v begins with.
func (l *layout) logHeader() {
	l.logf("Logical sector size: %d\n", l.secsz)
	l.logf("Physical block size: %d\n", l.blksz)
	l.logf("Sectors per track:   %d\n", l.track)
	l.logf("Number of heads:     %d\n\n", l.heads)
	if l.s != nil {
		l.logf("Partitioning scheme: %s\n", l.s.name)
	}
	l.logf("Output file format:  %s\n\n", formatName(l.format))
}

// logPartition ends a partition's line of mkimg -v with its size and, for
// an offset, where it was asked to go (blkoff is the offset in sectors).
func (l *layout) logPartition(p *placed, blkoff uint64) {
	l.logf("size %d bytes (%d blocks)\n", p.sectors*l.secsz, p.sectors)
	switch {
	case p.Absolute:
		l.logf("    location %d bytes (%d blocks)\n", p.Offset, blkoff)
	case blkoff > 0:
		l.logf("    offset %d bytes (%d blocks)\n", p.Offset, blkoff)
	}
}
