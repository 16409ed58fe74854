package cli

import (
	"fmt"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/msdos"
)

// makefs -t msdos: FAT12/16/32 images as FreeBSD makefs(8) makes them, by
// imgkit/msdos. Every -o option of makefs's msdos type is accepted by name
// or one-letter key; -s, -m, -M, -O, -S and -T apply as makefs applies
// them, and without a size the smallest image that holds the tree is made.
// -o timestamp sets every time as -T does, when -T is not given.

func init() {
	registerMakefsType(makefsType{Name: "msdos", Run: runMakefsMsdos, Help: msdos.OptionHelp})
}

func runMakefsMsdos(a *makefsArgs) error {
	o, err := msdosOptions(a)
	if err != nil {
		return err
	}
	if o.Cache, err = a.cacheOptions(); err != nil {
		return err
	}
	t, err := a.tree()
	if err != nil {
		return err
	}
	if err := msdos.WriteFile(a.Image, t, o); err != nil {
		return fmt.Errorf("makefs: %w", err)
	}
	return nil
}

// msdosOptions turns the makefs command line into msdos.Options. The time
// is -T, else -o timestamp, else SOURCE_DATE_EPOCH as an upper bound.
func msdosOptions(a *makefsArgs) (*msdos.Options, error) {
	o := &msdos.Options{}
	for _, opt := range a.Opts {
		if err := msdos.ParseOption(o, opt.Key, opt.Value); err != nil {
			return nil, optionError(opt, err, msdos.ErrOption)
		}
	}
	if a.SectorSize != 0 {
		switch {
		case o.BytesPerSector == 0:
			o.BytesPerSector = a.SectorSize
		case o.BytesPerSector != a.SectorSize:
			return nil, usagef("makefs: inconsistent sector size: -S %d, -o bytes_per_sector=%d", a.SectorSize, o.BytesPerSector)
		}
	}
	o.Size, o.MinSize, o.MaxSize = a.Size, a.MinSize, a.MaxSize
	if a.Offset != 0 {
		o.Offset = a.Offset
	}
	if a.Timestamp != nil || o.Timestamp.IsZero() {
		topts, err := a.treeOptions()
		if err != nil {
			return nil, err
		}
		o.Timestamp, o.ClampTimes = topts.Timestamp, topts.ClampTimes
	}
	o.Warn = a.Env.Stderr
	if o.Bootstrap != "" && o.Bootstrap[0] != '/' && strings.Contains(o.Bootstrap, "/") {
		o.Bootstrap = a.Env.abs(o.Bootstrap)
	}
	return o, nil
}
