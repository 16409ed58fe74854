package makefs

import (
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/msdos"
)

// -t msdos: FAT12/16/32 images as FreeBSD makefs(8) makes them, by
// imgkit/msdos. Every -o option of makefs's msdos type is accepted by name
// or one-letter key; -s, -m, -M, -O, -S and -T apply as makefs applies
// them, and without a size the smallest image that holds the tree is made.
// -o timestamp sets every time as -T does, when -T is not given.

func init() { RegisterFSType(msdosFSType) }

// msdosFSType is the msdos type: imgkit/msdos's option table and WriteFile.
var msdosFSType = FSType[msdos.Options]{
	Name:        "msdos",
	Description: "FAT: FAT12, FAT16, FAT32",
	Help:        msdos.OptionHelp,
	ParseOption: msdos.ParseOption,
	ErrOption:   msdos.ErrOption,
	Common: func(o *msdos.Options) Common {
		return Common{Timestamp: &o.Timestamp, ClampTimes: &o.ClampTimes, Cache: &o.Cache, Warn: &o.Warn}
	},
	Flags:     msdosFlags,
	Files:     (*msdos.Options).Files,
	WriteFile: msdos.WriteFile,
}

// msdosFlags copies -S, -s, -M, -m and -O into o, and resolves a bootstrap
// path that names a directory against the working directory.
func msdosFlags(c *Command, o *msdos.Options) error {
	if c.SectorSize != 0 {
		switch {
		case o.BytesPerSector == 0:
			o.BytesPerSector = c.SectorSize
		case o.BytesPerSector != c.SectorSize:
			return usagef("makefs: inconsistent sector size: -S %d, -o bytes_per_sector=%d", c.SectorSize, o.BytesPerSector)
		}
	}
	o.Size, o.MinSize, o.MaxSize = c.Size, c.MinSize, c.MaxSize
	if c.Offset != 0 {
		o.Offset = c.Offset
	}
	if o.Bootstrap != "" && o.Bootstrap[0] != '/' && strings.Contains(o.Bootstrap, "/") {
		o.Bootstrap = c.abs(o.Bootstrap)
	}
	return nil
}
