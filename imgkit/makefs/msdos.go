package makefs

import (
	"fmt"
	"io"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/msdos"
)

// -t msdos: FAT12/16/32 images as FreeBSD makefs(8) makes them, by
// imgkit/msdos. Every -o option of makefs's msdos type is accepted by name
// or one-letter key; -s, -m, -M, -O, -S and -T apply as makefs applies
// them, and without a size the smallest image that holds the tree is made.
// -o timestamp sets every time as -T does, when -T is not given.

func init() {
	Register(Type{Name: "msdos", Write: writeMsdos, Help: msdos.OptionHelp})
}

func writeMsdos(c *Command, warn io.Writer) error {
	o, err := msdosOptions(c, warn)
	if err != nil {
		return err
	}
	if o.Cache, err = c.CacheOptions(); err != nil {
		return err
	}
	t, err := c.Tree(warn)
	if err != nil {
		return err
	}
	if err := msdos.WriteFile(c.Image, t, o); err != nil {
		return fmt.Errorf("makefs: %w", err) // Run rewords the Options fields it names
	}
	return nil
}

// msdosOptions turns the command line into msdos.Options. The time is -T,
// else -o timestamp, else SOURCE_DATE_EPOCH as an upper bound.
func msdosOptions(c *Command, warn io.Writer) (*msdos.Options, error) {
	o := &msdos.Options{}
	for _, opt := range c.Opts {
		if err := msdos.ParseOption(o, opt.Key, opt.Value); err != nil {
			return nil, optionError(opt, err, msdos.ErrOption)
		}
	}
	if c.SectorSize != 0 {
		switch {
		case o.BytesPerSector == 0:
			o.BytesPerSector = c.SectorSize
		case o.BytesPerSector != c.SectorSize:
			return nil, usagef("makefs: inconsistent sector size: -S %d, -o bytes_per_sector=%d", c.SectorSize, o.BytesPerSector)
		}
	}
	o.Size, o.MinSize, o.MaxSize = c.Size, c.MinSize, c.MaxSize
	if c.Offset != 0 {
		o.Offset = c.Offset
	}
	if !c.Timestamp.IsZero() || o.Timestamp.IsZero() {
		topts, err := c.TreeOptions()
		if err != nil {
			return nil, err
		}
		o.Timestamp, o.ClampTimes = topts.Timestamp, topts.ClampTimes
	}
	o.Warn = warn
	if o.Bootstrap != "" && o.Bootstrap[0] != '/' && strings.Contains(o.Bootstrap, "/") {
		o.Bootstrap = c.abs(o.Bootstrap)
	}
	return o, nil
}
