package makefs

import (
	"fmt"
	"io"

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

func init() {
	Register(Type{Name: "ffs", Write: writeFFS, Help: ffs.OptionHelp})
}

func writeFFS(c *Command, warn io.Writer) error {
	o, err := ffsOptions(c, warn)
	if err != nil {
		return err
	}
	t, err := c.Tree(warn)
	if err != nil {
		return err
	}
	if err := ffs.WriteFile(c.Image, t, o); err != nil {
		return fmt.Errorf("makefs: %w", err) // Run rewords the Options fields it names
	}
	return nil
}

// ffsOptions turns the command line into ffs.Options: the -o options, the
// global flags, the time rule (-T, or SOURCE_DATE_EPOCH) and the
// block-cache mode (FIXTUREGEN_CACHE).
func ffsOptions(c *Command, warn io.Writer) (*ffs.Options, error) {
	o := &ffs.Options{}
	for _, opt := range c.Opts {
		// A key without a value is an empty one, as makefs's set_option
		// makes it: 1 for a numeric key.
		if err := ffs.ParseOption(o, opt.Key, opt.Value); err != nil {
			if opt.Key == "compat" {
				return nil, usagef("makefs: -o %s: want compat=freebsd or compat=debian", opt)
			}
			return nil, optionError(opt, err, ffs.ErrOption)
		}
	}
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
	topts, err := c.TreeOptions()
	if err != nil {
		return nil, err
	}
	o.Timestamp, o.ClampTimes = topts.Timestamp, topts.ClampTimes
	if o.Cache, err = c.CacheOptions(); err != nil {
		return nil, err
	}
	o.Warn = warn
	return o, nil
}
