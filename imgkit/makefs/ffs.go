package makefs

import (
	"github.com/fixturegen/fixturegen/imgkit/ffs"
)

// -t ffs: UFS1 and UFS2 images as FreeBSD makefs(8) makes them, by
// imgkit/ffs. Every -o option of makefs's ffs type is accepted, under its
// name or its one-letter key, with makefs's number syntax, plus
// compat=freebsd|debian, which selects the defaults and quirks of FreeBSD's
// makefs (the default) or of the Debian package (see imgkit/ffs). -s, -m,
// -M, -b, -f, -R, -O, -S, -B and -T apply as makefs applies them; -Z is
// accepted and changes nothing, since every image is written sparse.
// Without a size the smallest image that holds the tree is made; a size
// too small is an error that names the smallest -s that works.

func init() { RegisterFSType(ffsFSType) }

// ffsFSType is the ffs type: imgkit/ffs's option table and WriteFile.
var ffsFSType = FSType[ffs.Options]{
	Name:        "ffs",
	Description: "FFS: UFS1, UFS2",
	Help:        ffs.OptionHelp,
	ParseOption: ffs.ParseOption,
	ErrOption:   ffs.ErrOption,
	Hints:       map[string]string{"compat": "want compat=freebsd or compat=debian"},
	Common: func(o *ffs.Options) Common {
		return Common{Timestamp: &o.Timestamp, ClampTimes: &o.ClampTimes, Cache: &o.Cache, Warn: &o.Warn}
	},
	Flags:     ffsFlags,
	Files:     nil, // no ffs option names a file
	WriteFile: ffs.WriteFile,
}

// ffsFlags copies the global flags into o: -S, -s/-M/-m, -b, -f, -R, -O,
// -Z and -B.
func ffsFlags(c *Command, o *ffs.Options) error {
	o.SectorSize = c.SectorSize
	// -s sets the minimum and the maximum, as makefs's -s does; a later
	// -M or -m changes one of them again, and then the two apply.
	o.MinSize, o.MaxSize = c.MinSize, c.MaxSize
	if c.Size > 0 && c.MinSize == c.Size && c.MaxSize == c.Size {
		o.Size, o.MinSize, o.MaxSize = c.Size, 0, 0
	}
	o.FreeBlocks, o.FreeBlocksPct = c.FreeBlocks, c.FreeBlocksPct
	o.FreeFiles, o.FreeFilesPct = c.FreeFiles, c.FreeFilesPct
	o.Roundup, o.Offset, o.Sparse = c.Roundup, c.Offset, c.Sparse
	if c.ByteOrder != nil {
		o.ByteOrder = c.ByteOrder
	}
	return nil
}
