package cli

import (
	"encoding/binary"
	"fmt"

	"github.com/fixturegen/fixturegen/imgkit/ffs"
)

// makefs -t ffs: UFS1 and UFS2 images as FreeBSD makefs(8) makes them, by
// imgkit/ffs. Every -o option of makefs's ffs type is accepted, plus
// compat=freebsd|debian, which selects the defaults and quirks of FreeBSD's
// makefs (the default) or of the Debian package (see imgkit/ffs). -s, -m,
// -M, -b, -f, -R, -O, -S, -B and -T apply as makefs applies them; -Z is
// accepted and changes nothing, since every image is written sparse.
// Without a size the smallest image that holds the tree is made; a size
// too small is an error that names the smallest -s that works.

func init() {
	registerMakefsType(makefsType{Name: "ffs", Run: runMakefsFFS})
}

func runMakefsFFS(a *makefsArgs) error {
	o, err := ffsOptions(a)
	if err != nil {
		return err
	}
	c, err := a.cacheOptions()
	if err != nil {
		return err
	}
	t, err := a.tree()
	if err != nil {
		return err
	}
	if o.Timestamp == nil {
		// fs_time follows SOURCE_DATE_EPOCH when -T is absent.
		if topts, err := a.treeOptions(); err == nil && topts.ClampTimes {
			o.Timestamp = &topts.Timestamp
		}
	}
	if err := ffs.Write(a.Image, t, o, c); err != nil {
		return fmt.Errorf("makefs: %w", err)
	}
	return nil
}

// ffsOptions turns the makefs command line into ffs.Options.
func ffsOptions(a *makefsArgs) (*ffs.Options, error) {
	o := &ffs.Options{}
	for _, opt := range a.Opts {
		if opt.Key == "compat" {
			switch opt.Value {
			case "freebsd":
				o.Compat = ffs.CompatFreeBSD
			case "debian":
				o.Compat = ffs.CompatDebian
			default:
				return nil, usagef("makefs: -o %s: want compat=freebsd or compat=debian", optString(opt))
			}
			continue
		}
		if !opt.HasValue {
			return nil, usagef("makefs: -o %s: option needs a value (%s=...)", opt.Key, opt.Key)
		}
		if err := ffs.ParseOption(o, opt.Key, opt.Value); err != nil {
			return nil, optionError(opt, err, ffs.ErrOption)
		}
	}
	o.SectorSize = a.SectorSize
	o.Size, o.MinSize, o.MaxSize = a.Size, a.MinSize, a.MaxSize
	o.FreeBlocks, o.FreeBlocksPct = a.FreeBlocks, a.FreeBlocksPct
	o.FreeFiles, o.FreeFilesPct = a.FreeFiles, a.FreeFilesPct
	o.Roundup, o.Offset, o.Sparse = a.Roundup, a.Offset, a.Sparse
	switch a.ByteOrder {
	case "be":
		o.ByteOrder = binary.BigEndian
	case "le":
		o.ByteOrder = binary.LittleEndian
	}
	o.Timestamp = a.Timestamp
	o.Warn = a.Env.Stderr
	return o, nil
}
