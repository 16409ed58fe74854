//go:build !linux

package vdisk

// NextData returns the first run [lo, hi) of the disk at or after off
// that may hold data: here, everything from off.
func (d *Disk) NextData(off int64) (lo, hi int64) { return off, d.size }
