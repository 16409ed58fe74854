package vdisk

import (
	"fmt"
	"io"
)

// Params are what a container needs of the disk mkimg lays out, besides
// its bytes.
type Params struct {
	// SectorSize is the disk's logical sector size, BlockSize its
	// physical block size, in bytes.
	SectorSize, BlockSize uint64
	// Heads and SectorsPerTrack are the simulated geometry (-H, -T).
	Heads, SectorsPerTrack uint64
	// Sectors is the disk's size in sectors, once resized (Write).
	Sectors uint64
	// FreeBSDTestMode writes what FreeBSD's mkimg -y writes: fixed times
	// and ids instead of derived ones.
	FreeBSDTestMode bool
	// Timestamp is -t, seconds since the epoch; nil for none (never the
	// clock).
	Timestamp *int64
	// ID returns the id the disk's GUID rule gives the container for
	// role ("vhd", "vhdx", "vmdk"), in RFC 4122 byte order, once the raw
	// disk is written (Write); in FreeBSD's test mode, mkimg's next
	// counter value.
	ID func(role string) [16]byte
	// Log takes the -v lines; nil without -v.
	Log io.Writer
}

// Logf writes a -v line to p.Log, when there is one.
func (p *Params) Logf(format string, args ...any) {
	if p.Log != nil {
		fmt.Fprintf(p.Log, format, args...)
	}
}
