package ffs

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"
)

// Compat selects whose makefs(8) the writer follows where FreeBSD's current
// makefs and the Debian package (a 2019 port of NetBSD's) differ.
type Compat int

const (
	// CompatFreeBSD follows FreeBSD's makefs: default bsize 32768 and
	// fsize 4096, the UFS2 superblock at byte 65536, -T setting every
	// time (the tree's times are written as they are), birth times kept,
	// sockets stored.
	CompatFreeBSD Compat = iota
	// CompatDebian follows the Debian package's makefs: default bsize
	// 8192 and fsize 1024, the UFS2 superblock at byte 8192, Timestamp
	// clamping UFS1 inode times (not UFS2 ones) and nanoseconds dropped,
	// no birth times, di_gen 0 in used inodes, sockets left out.
	CompatDebian
)

// Options are the ffs options of makefs(8), -o and the global ones that
// apply to an ffs image. The zero value makes a UFS1 image of the smallest
// size that holds the tree, with FreeBSD's defaults.
type Options struct {
	Version int // 1 or 2; 0 means 1

	BSize, FSize  int // fs_bsize, fs_fsize; 0 means the default
	Density       int // bytes per inode; 0 computes it from the tree
	MinFree       int // percent kept free (fs_minfree); -1 or unset (0 with MinFreeSet false) means 8
	MinFreeSet    bool
	MaxBPG        int    // fs_maxbpg: blocks per file in a group; 0 means bsize/4
	AvgFileSize   int    // fs_avgfilesize; 0 means 16384
	AvgFPDir      int    // fs_avgfpdir; 0 means 64
	Extent        int    // fs_maxbsize; 0 means bsize
	MaxBPCG       int    // blocks per cylinder group limit; 0 means none
	Optimization  string // "time" (default) or "space"
	Label         string // fs_volname, at most 31 bytes
	SoftUpdates   bool   // FS_DOSOFTDEP (UFS2)
	SectorSize    int    // 0 means 512
	Size          int64  // -s: exact size (sets MinSize and MaxSize)
	MinSize       int64  // -M
	MaxSize       int64  // -m
	FreeBlocks    int64  // -b: free bytes to add
	FreeBlocksPct int    // -b N%
	FreeFiles     int64  // -f: free inodes to add
	FreeFilesPct  int    // -f N%
	Roundup       int64  // -R: round the size up to a multiple
	Offset        int64  // -O: bytes before the file system in the image file
	Sparse        bool   // -Z: accepted; images are always sparse
	ByteOrder     binary.ByteOrder

	// Timestamp is fs_time, fs_id[0] and cg_time, and (with CompatDebian)
	// the clamp for UFS1 inode times. When nil, the latest modification
	// time in the tree is used, so that the image does not depend on the
	// clock.
	Timestamp *time.Time

	Compat Compat

	// Warn receives makefs's informational lines (may be nil).
	Warn io.Writer
}

// ParseOption applies one -o key=value option of makefs -t ffs. Errors
// wrap ErrOption and name the option and the allowed range.
func ParseOption(o *Options, key, value string) error {
	num := func(lo, hi int64) (int, error) {
		n, err := strconv.ParseInt(value, 0, 64)
		if err != nil || n < lo || n > hi {
			return 0, fmt.Errorf("%w: %s=%q: want a number from %d to %d", ErrOption, key, value, lo, hi)
		}
		return int(n), nil
	}
	var err error
	switch key {
	case "version":
		o.Version, err = num(1, 2)
	case "bsize":
		o.BSize, err = num(minBSize, maxBSize)
	case "fsize":
		o.FSize, err = num(512, maxBSize)
	case "density":
		o.Density, err = num(1, math.MaxInt32)
	case "minfree":
		o.MinFree, err = num(0, 99)
		o.MinFreeSet = true
	case "maxbpg", "maxbpf":
		o.MaxBPG, err = num(1, math.MaxInt32)
	case "avgfilesize":
		o.AvgFileSize, err = num(1, math.MaxInt32)
	case "avgfpdir":
		o.AvgFPDir, err = num(1, math.MaxInt32)
	case "extent":
		o.Extent, err = num(1, math.MaxInt32)
	case "maxbpcg":
		o.MaxBPCG, err = num(1, math.MaxInt32)
	case "optimization":
		if value != "time" && value != "space" {
			return fmt.Errorf("%w: optimization=%q: want time or space", ErrOption, value)
		}
		o.Optimization = value
	case "label":
		if len(value) >= maxVolLen {
			return fmt.Errorf("%w: label=%q: at most %d bytes", ErrOption, value, maxVolLen-1)
		}
		o.Label = value
	case "softupdates":
		var n int
		n, err = num(0, 1)
		o.SoftUpdates = n == 1
	default:
		return fmt.Errorf("%w: unknown option %q (want version, bsize, fsize, density, minfree, maxbpg, avgfilesize, avgfpdir, extent, maxbpcg, optimization, label or softupdates)", ErrOption, key)
	}
	return err
}
