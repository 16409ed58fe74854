package makefs

import (
	"fmt"
	"io"

	"github.com/fixturegen/fixturegen/imgkit/cd9660"
)

// -t cd9660: ISO 9660 images as FreeBSD makefs(8) makes them, by
// imgkit/cd9660, with Rock Ridge and, beyond makefs, Joliet. Every -o
// option of makefs's cd9660 type is accepted by name or one-letter key;
// -T applies as makefs applies it (SOURCE_DATE_EPOCH bounds every time
// when -T is absent); -s, -m and -M are accepted and ignored, as FreeBSD's
// makefs ignores them for cd9660, with a warning.

func init() {
	Register(Type{Name: "cd9660", Write: writeCD9660, Help: cd9660.OptionHelp})
}

func writeCD9660(c *Command, warn io.Writer) error {
	o, err := cd9660Options(c, warn)
	if err != nil {
		return err
	}
	t, err := c.Tree(warn)
	if err != nil {
		return err
	}
	if err := cd9660.WriteFile(c.Image, t, o); err != nil {
		return fmt.Errorf("makefs: %w", err) // Run rewords the Options fields it names
	}
	return nil
}

// cd9660Options turns the command line into cd9660.Options: the -o
// options, the sizes, the time rule and the block-cache mode.
func cd9660Options(c *Command, warn io.Writer) (*cd9660.Options, error) {
	o := &cd9660.Options{}
	for _, opt := range c.Opts {
		if err := cd9660.ParseOption(o, opt.Key, opt.Value); err != nil {
			return nil, optionError(opt, err, cd9660.ErrOption)
		}
	}
	resolveBootFiles(c, &o.Boot)
	o.Size, o.MinSize, o.MaxSize = c.Size, c.MinSize, c.MaxSize
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

// resolveBootFiles makes the boot image files of b (bootimage's and
// generic-bootimage's) absolute against the command's working directory,
// where makefs opens them, so that a catalogue entry run in-process reads
// them from its own folder.
func resolveBootFiles(c *Command, b *cd9660.Boot) {
	for i := range b.Images {
		if b.Images[i].File != "" {
			b.Images[i].File = c.abs(b.Images[i].File)
		}
	}
	if b.GenericImage != "" {
		b.GenericImage = c.abs(b.GenericImage)
	}
}
