//go:build !linux

package mkimg

// dataRun returns the first run [lo, hi) of the disk at or after off
// that may hold data: here, everything from off.
func (d *rawDisk) dataRun(off int64) (lo, hi int64) { return off, d.size }
