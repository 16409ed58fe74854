package cli

import (
	"encoding/binary"
	"fmt"

	"github.com/fixturegen/fixturegen/imgkit/ffs"
)

// makefs -t ffs: UFS1 and UFS2 images as FreeBSD makefs(8) makes them, by
// imgkit/ffs. Every -o option of makefs's ffs type is accepted, under its
// name or its one-letter key, with makefs's number syntax, plus
// compat=freebsd|debian, which selects the defaults and quirks of FreeBSD's
// makefs (the default) or of the Debian package (see imgkit/ffs). -s, -m,
// -M, -b, -f, -R, -O, -S, -B and -T apply as makefs applies them; -Z is
// accepted and changes nothing, since every image is written sparse.
// Without a size the smallest image that holds the tree is made; a size
// too small is an error that names the smallest -s that works.

func init() {
	registerMakefsType(makefsType{Name: "ffs", Run: runMakefsFFS, Help: ffs.OptionHelp})
}

func runMakefsFFS(a *makefsArgs) error {
	o, err := ffsOptions(a)
	if err != nil {
		return err
	}
	t, err := a.tree()
	if err != nil {
		return err
	}
	if err := ffs.WriteFile(a.Image, t, o); err != nil {
		return fmt.Errorf("makefs: %w", err) // runMakefs rewords the Options fields it names
	}
	return nil
}

// ffsOptions turns the makefs command line into ffs.Options: the -o
// options, the global flags, the time rule (-T, or SOURCE_DATE_EPOCH) and
// the block-cache mode (FIXTUREGEN_CACHE).
func ffsOptions(a *makefsArgs) (*ffs.Options, error) {
	o := &ffs.Options{}
	for _, opt := range a.Opts {
		// A key without a value is an empty one, as makefs's set_option
		// makes it: 1 for a numeric key.
		if err := ffs.ParseOption(o, opt.Key, opt.Value); err != nil {
			if opt.Key == "compat" {
				return nil, usagef("makefs: -o %s: want compat=freebsd or compat=debian", optString(opt))
			}
			return nil, optionError(opt, err, ffs.ErrOption)
		}
	}
	o.SectorSize = a.SectorSize
	// -s sets the minimum and the maximum, as makefs's -s does; a later
	// -M or -m changes one of them again, and then the two apply.
	o.MinSize, o.MaxSize = a.MinSize, a.MaxSize
	if a.Size > 0 && a.MinSize == a.Size && a.MaxSize == a.Size {
		o.Size, o.MinSize, o.MaxSize = a.Size, 0, 0
	}
	o.FreeBlocks, o.FreeBlocksPct = a.FreeBlocks, a.FreeBlocksPct
	o.FreeFiles, o.FreeFilesPct = a.FreeFiles, a.FreeFilesPct
	o.Roundup, o.Offset, o.Sparse = a.Roundup, a.Offset, a.Sparse
	switch a.ByteOrder {
	case "be":
		o.ByteOrder = binary.BigEndian
	case "le":
		o.ByteOrder = binary.LittleEndian
	}
	topts, err := a.treeOptions()
	if err != nil {
		return nil, err
	}
	o.Timestamp, o.ClampTimes = topts.Timestamp, topts.ClampTimes
	if o.Cache, err = a.cacheOptions(); err != nil {
		return nil, err
	}
	o.Warn = a.Env.Stderr
	return o, nil
}
