package qcow

import (
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/vdisk"
)

// qcowMaxRuns bounds the data runs a qcow layout keeps between placing
// its tables and writing them (16 bytes each: 16 MiB), which a disk of
// data clusters alternating with zero ones would otherwise make grow with
// the disk (128 MiB for 1 TiB of 64 KiB clusters): past it, the runs are
// found again with dataUnits as the tables and the data are written.
var qcowMaxRuns = 1 << 20

// keepRun records run r of data clusters, or, past qcowMaxRuns, drops
// the runs so that eachRun finds them again.
func (q *qcowLayout) keepRun(r qcowRun) {
	switch {
	case q.rescan:
	case len(q.runs) >= qcowMaxRuns:
		q.runs, q.rescan = nil, true
	default:
		q.runs = append(q.runs, r)
	}
}

// eachRun calls fn for each run of data clusters of disk, in order: the
// runs kept, or those dataUnits finds again, which must count the
// clusters placeData counted (the raw disk and the partitions' files it
// links must not change while the container is written).
func (q *qcowLayout) eachRun(disk *vdisk.Disk, fn func(qcowRun) error) error {
	if !q.rescan {
		for _, r := range q.runs {
			if err := fn(r); err != nil {
				return err
			}
		}
		return nil
	}
	seen := int64(0)
	err := disk.DataUnits(q.cs, nil, func(first, n int64) error { // within the write's step
		if seen += n; seen > q.data {
			return fmt.Errorf("%w: the raw disk holds more than the %d data clusters first counted", vdisk.ErrSourceChanged, q.data)
		}
		return fn(qcowRun{first, n})
	})
	if err == nil && seen != q.data {
		err = fmt.Errorf("%w: the raw disk holds %d data clusters, not the %d first counted", vdisk.ErrSourceChanged, seen, q.data)
	}
	return err
}
