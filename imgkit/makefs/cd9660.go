package makefs

import "github.com/fixturegen/fixturegen/imgkit/cd9660"

// -t cd9660: ISO 9660 images as FreeBSD makefs(8) makes them, by
// imgkit/cd9660, with Rock Ridge, El Torito and, beyond makefs, Joliet.
// Every -o option of makefs's cd9660 type is accepted by name or
// one-letter key; -T applies as makefs applies it (SOURCE_DATE_EPOCH
// bounds every time when -T is absent); -s, -m and -M are accepted and
// ignored, as FreeBSD's makefs ignores them for cd9660, with a warning.

func init() { RegisterFormat(cd9660Format) }

// cd9660Format is the cd9660 type: imgkit/cd9660's option table and
// WriteFile.
var cd9660Format = Format[cd9660.Options]{
	Name:        "cd9660",
	Help:        cd9660.OptionHelp,
	ParseOption: cd9660.ParseOption,
	ErrOption:   cd9660.ErrOption,
	Common: func(o *cd9660.Options) Common {
		return Common{Timestamp: &o.Timestamp, ClampTimes: &o.ClampTimes, Cache: &o.Cache, Warn: &o.Warn}
	},
	Flags:     cd9660Flags,
	WriteFile: cd9660.WriteFile,
}

// cd9660Flags copies -s, -M and -m into o, which warns that they change
// nothing, and resolves the boot image files against the working
// directory.
func cd9660Flags(c *Command, o *cd9660.Options) error {
	o.Size, o.MinSize, o.MaxSize = c.Size, c.MinSize, c.MaxSize
	resolveBootFiles(c, &o.Boot)
	return nil
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
