package vdisk

import (
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/internal/diskio"

	"github.com/fixturegen/fixturegen/imgkit/progress"
)

// DataUnits calls fn for each run of consecutive units of unit bytes of
// the disk that hold data (any byte other than zero, as mkimg's
// image_data asks of each cluster or block), in order: first is the
// run's first unit, n its length in units. A temporary file's holes are
// skipped without being read (SEEK_DATA), and a unit is read only until
// its first byte other than zero, so that a container of a sparse or a
// full disk costs little more than the data it copies. Only whole units
// are visited: a partial last unit is the caller's to check (HasData).
// The bytes of the disk passed, read or skipped, are added to step (nil
// for none) as the scan goes, so that it ends at the disk's size.
func (d *Disk) DataUnits(unit int64, step *progress.Step, fn func(first, n int64) error) error {
	buf := make([]byte, min(unit, 1<<16))
	runFirst, runN := int64(0), int64(0)
	flush := func() error {
		if runN == 0 {
			return nil
		}
		err := fn(runFirst, runN)
		runN = 0
		return err
	}
	reached := int64(0) // the bytes added to step
	passed := func(to int64) {
		if to > reached {
			step.Add(to - reached)
			reached = to
		}
	}
	for off := int64(0); off < d.size; {
		lo, hi := d.NextData(off)
		// The units wholly or partly inside [lo, hi) may hold data; off
		// is at a unit's start.
		u := lo / unit
		end := min((hi+unit-1)/unit, d.size/unit)
		for ; u < end; u++ {
			data, err := d.unitHasData(buf, u*unit, unit)
			if err != nil {
				return err
			}
			passed((u + 1) * unit)
			switch {
			case !data:
				if err := flush(); err != nil {
					return err
				}
			case runN > 0 && runFirst+runN == u:
				runN++
			default:
				if err := flush(); err != nil {
					return err
				}
				runFirst, runN = u, 1
			}
		}
		off = max(end*unit, hi)
		passed(min(off, d.size))
	}
	passed(d.size)
	return flush()
}

// unitHasData reports whether the n bytes at off hold a byte other than
// zero, reading them in pieces of buf's size, the first piece no more
// than 4 KiB, which is as far as a unit of data is usually read.
func (d *Disk) unitHasData(buf []byte, off, n int64) (bool, error) {
	piece := min(n, 4096, int64(len(buf)))
	for n > 0 {
		m := min(n, piece)
		if _, err := d.r.ReadAt(buf[:m], off); err != nil {
			return false, fmt.Errorf("mkimg: reading the raw disk at byte %d: %w", off, err)
		}
		if !diskio.IsZero(buf[:m]) {
			return true, nil
		}
		off += m
		n -= m
		piece = int64(len(buf))
	}
	return false, nil
}
