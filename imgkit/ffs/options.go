package ffs

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/makefs/fsopt"
)

// Compat selects whose makefs(8) the writer follows where FreeBSD's current
// makefs and the Debian package (a 2019 port of NetBSD's) differ; it is
// fsopt.Compat, which every makefs format shares.
//
// For FFS, CompatFreeBSD means default bsize 32768 and fsize 4096,
// minfree 8, the UFS2 superblock at byte 65536, FreeBSD's size estimate
// and density rules, fs_id[1] and di_gen from FreeBSD's random(3), the
// tree's times written as they are (nanoseconds and birth times
// included); CompatDebian means default bsize 8192 and fsize 1024,
// minfree 5, the UFS2 superblock at byte 8192, NetBSD's size estimate and
// density rules, nanoseconds and birth times dropped, di_gen 0 in used
// inodes.
type Compat = fsopt.Compat

// The values of Compat.
const (
	CompatFreeBSD = fsopt.CompatFreeBSD
	CompatDebian  = fsopt.CompatDebian
)

// Options are the ffs options of makefs(8), -o and the global ones that
// apply to an ffs image. The zero value makes a UFS1 image of the smallest
// size that holds the tree, with FreeBSD's defaults and the tree's own
// times.
type Options struct {
	Version int // 1 or 2; 0 means 1

	BSize, FSize  int              // fs_bsize, fs_fsize; 0 means the default
	Density       int              // bytes per inode; 0 computes it from the tree (CompatFreeBSD: at most 2 fragments with Size, MinSize or FreeBlocks)
	MinFree       *int             // percent of blocks kept free (fs_minfree), 0 to 99; nil means 8 (5 with CompatDebian)
	MaxBPG        int              // fs_maxbpg: blocks per file in a group; 0 means bsize/4
	AvgFileSize   int              // fs_avgfilesize; 0 means 16384
	AvgFPDir      int              // fs_avgfpdir; 0 means 64
	Extent        int              // fs_maxbsize; 0 means bsize
	MaxBPCG       int              // blocks per cylinder group limit; 0 means none
	Optimization  string           // "time" (default, also "") or "space"
	Label         string           // fs_volname, at most 31 bytes
	SoftUpdates   bool             // FS_DOSOFTDEP (CompatFreeBSD: UFS2 only, as FreeBSD's mkfs sets it)
	SectorSize    int              // makefs -S; 0 means 512
	Size          int64            // makefs -s: the exact size; 0 means none (MinSize and MaxSize then apply)
	MinSize       int64            // makefs -M
	MaxSize       int64            // makefs -m
	FreeBlocks    int64            // makefs -b: free bytes to add
	FreeBlocksPct int              // makefs -b N%
	FreeFiles     int64            // makefs -f: free inodes to add
	FreeFilesPct  int              // makefs -f N%
	Roundup       int64            // makefs -R: round the size up to a multiple
	Offset        int64            // makefs -O: bytes before the file system in the image
	Sparse        bool             // makefs -Z: accepted; images are always sparse
	ByteOrder     binary.ByteOrder // makefs -B; nil means little-endian

	// Timestamp, when not the zero time, is every time of the tree
	// (makefs -T), or with ClampTimes the latest time any file keeps
	// (the SOURCE_DATE_EPOCH rule): it is passed to the source as
	// fstree.Options. Either way it is also fs_time, fs_id[0] and
	// cg_time. When zero, the tree's times are written as they are and
	// fs_time is the latest modification time in the tree, so that the
	// image does not depend on the clock.
	Timestamp time.Time
	// ClampTimes makes Timestamp an upper bound for the tree's times
	// instead of their value.
	ClampTimes bool

	Compat Compat

	// Cache configures the block cache through which WriteFile writes the
	// image file (nil means the default; see imgkit/bcache). Write and
	// Build build the image in memory, which has no settings.
	Cache *bcache.Options

	// Warn receives makefs's informational lines (may be nil).
	Warn io.Writer

	// oneByOne makes the writer allocate every block through balloc, as
	// ffs_balloc does, never a run at once (allocrun.go): the tests
	// compare the two.
	oneByOne bool
}

// optionTable is the table of -o keys, in the order of makefs(8)'s manual.
// A Letter is the one-letter key of FreeBSD's ffs option table; a Default
// is FreeBSD's, and Debian's after it where that differs.
var optionTable = fsopt.Table[Options]{
	{Option: fsopt.Option{Key: "version", Letter: "v", Field: "Version", Default: "1",
		Usage: "UFS version: 1 for UFS1, 2 for UFS2"},
		Set: intOption(1, 2, func(o *Options) *int { return &o.Version })},
	{Option: fsopt.Option{Key: "bsize", Letter: "b", Field: "BSize", Default: "32768 (compat=debian: 8192)",
		Usage: "block size in bytes (fs_bsize); by default at most 8 fragments"},
		Set: intOption(minBSize, maxBSize, func(o *Options) *int { return &o.BSize })},
	{Option: fsopt.Option{Key: "fsize", Letter: "f", Field: "FSize", Default: "4096 (compat=debian: 1024)",
		Usage: "fragment size in bytes (fs_fsize); by default at least the sector size"},
		Set: intOption(512, maxBSize, func(o *Options) *int { return &o.FSize })},
	{Option: fsopt.Option{Key: "density", Letter: "d", Field: "Density", Default: "from the tree",
		Usage: "bytes of file system per inode; by default the image size over the inodes needed; with -s, -M or -b at most 2 fragments"},
		Set: intOption(1, math.MaxInt32, func(o *Options) *int { return &o.Density })},
	{Option: fsopt.Option{Key: "minfree", Letter: "m", Field: "MinFree", Default: "8 (compat=debian: 5)",
		Usage: "percentage of blocks kept free (fs_minfree)"},
		Set: func(o *Options, key, value string) error {
			n, err := parseNum(key, value, 0, 99)
			if err == nil {
				o.MinFree = &n
			}
			return err
		}},
	{Option: fsopt.Option{Key: "maxbpg", Letter: "M", Field: "MaxBPG", Default: "bsize/4",
		Usage: "blocks of one file in a cylinder group before the next group (fs_maxbpg)"},
		Set: intOption(1, math.MaxInt32, func(o *Options) *int { return &o.MaxBPG })},
	{Option: fsopt.Option{Key: "maxbpf", Field: "MaxBPG", Default: "bsize/4",
		Usage: "another name for maxbpg"},
		Set: intOption(1, math.MaxInt32, func(o *Options) *int { return &o.MaxBPG })},
	{Option: fsopt.Option{Key: "avgfilesize", Letter: "a", Field: "AvgFileSize", Default: "16384",
		Usage: "expected average file size in bytes (fs_avgfilesize)"},
		Set: intOption(1, math.MaxInt32, func(o *Options) *int { return &o.AvgFileSize })},
	{Option: fsopt.Option{Key: "avgfpdir", Letter: "n", Field: "AvgFPDir", Default: "64",
		Usage: "expected number of files per directory (fs_avgfpdir)"},
		Set: intOption(1, math.MaxInt32, func(o *Options) *int { return &o.AvgFPDir })},
	{Option: fsopt.Option{Key: "extent", Letter: "x", Field: "Extent", Default: "bsize",
		Usage: "largest extent in bytes (fs_maxbsize)"},
		Set: intOption(1, math.MaxInt32, func(o *Options) *int { return &o.Extent })},
	{Option: fsopt.Option{Key: "maxbpcg", Letter: "g", Field: "MaxBPCG", Default: "no limit",
		Usage: "most blocks in a cylinder group"},
		Set: intOption(1, math.MaxInt32, func(o *Options) *int { return &o.MaxBPCG })},
	{Option: fsopt.Option{Key: "optimization", Letter: "o", Field: "Optimization", Default: "time",
		Usage: "what block allocation favours, time or space (fs_optim)"},
		Set: func(o *Options, _, value string) error {
			if value != "time" && value != "space" {
				return fmt.Errorf("%w: optimization=%q: want time or space", ErrOption, value)
			}
			o.Optimization = value
			return nil
		}},
	{Option: fsopt.Option{Key: "label", Letter: "l", Field: "Label", Default: "none",
		Usage: "volume name (fs_volname), at most 31 bytes"},
		Set: func(o *Options, _, value string) error {
			if len(value) >= maxVolLen {
				return fmt.Errorf("%w: label=%q: at most %d bytes", ErrOption, value, maxVolLen-1)
			}
			o.Label = value
			return nil
		}},
	{Option: fsopt.Option{Key: "softupdates", Letter: "s", Field: "SoftUpdates", Default: "0",
		Usage: "1 marks the file system for soft updates (FS_DOSOFTDEP; UFS2 only, but with compat=debian)"},
		Set: func(o *Options, key, value string) error {
			n, err := parseNum(key, value, 0, 1)
			if err == nil {
				o.SoftUpdates = n == 1
			}
			return err
		}},
	fsopt.CompatRow(ErrOption, "whose makefs's defaults and quirks to follow: freebsd or debian (Debian's package)",
		func(o *Options) *Compat { return &o.Compat }),
}

// wantKeys ends the error for a key that no option has: it lists the
// options of makefs(8), those of FreeBSD's ffs option table, which have a
// Letter (not maxbpf, another name for maxbpg, nor compat, which is this
// package's).
var wantKeys = func() string {
	var listed []string
	for _, opt := range optionTable {
		if opt.Letter != "" {
			listed = append(listed, opt.Key)
		}
	}
	last := len(listed) - 1
	return "(want " + strings.Join(listed[:last], ", ") + " or " + listed[last] + ")"
}()

// intOption returns the setter of an integer option from lo to hi.
func intOption(lo, hi int64, field func(o *Options) *int) func(o *Options, key, value string) error {
	return func(o *Options, key, value string) error {
		n, err := parseNum(key, value, lo, hi)
		if err == nil {
			*field(o) = n
		}
		return err
	}
}

// parseNum reads the value of the integer option key, from lo to hi, as
// makefs reads every number (fsopt.ParseNumber: base 10, suffixes b, k,
// m, g, t and w, products with x); an empty value, a key given without
// one, is 1, as makefs's set_option_var makes it.
func parseNum(key, value string, lo, hi int64) (int, error) {
	if value == "" {
		value = "1"
	}
	n, err := fsopt.ParseNumber(value, lo, hi)
	if err != nil {
		return 0, fmt.Errorf("%w: %s=%q: want a number from %d to %d", ErrOption, key, value, lo, hi)
	}
	return int(n), nil
}

// ParseOption applies one -o key=value option of makefs -t ffs to o: the
// keys of makefs(8) or their one-letter forms from FreeBSD's ffs option
// table (see OptionHelp), and compat=freebsd|debian for Options.Compat.
// Numbers are read as makefs reads them (fsopt.ParseNumber, so
// bsize=32k works), and a numeric key with an empty value, as makefs
// takes a key given without "=", is 1. Errors wrap ErrOption and name the
// option and the allowed values; o is unchanged by an option that is not
// valid.
func ParseOption(o *Options, key, value string) error {
	return optionTable.Parse(o, key, value, unknownOption)
}

// unknownOption is ParseOption's error for a key that no option has.
func unknownOption(key string) error {
	return fmt.Errorf("%w: unknown option %q %s", ErrOption, key, wantKeys)
}

// OptionHelp describes every key ParseOption accepts, in the order of
// makefs(8)'s manual: its one-letter form (FreeBSD's, none for maxbpf and
// compat), the Options field it sets, its default (FreeBSD's, and
// Debian's where that differs) and one line of meaning.
func OptionHelp() []fsopt.Option { return optionTable.Help() }
