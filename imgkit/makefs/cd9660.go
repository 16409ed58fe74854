package makefs

import "github.com/fixturegen/fixturegen/imgkit/cd9660"

// -t cd9660: ISO 9660 images as FreeBSD makefs(8) makes them, by
// imgkit/cd9660, with Rock Ridge, El Torito and, beyond makefs, Joliet.
// Every -o option of makefs's cd9660 type is accepted by name or one-letter
// key; -T applies as makefs applies it (SOURCE_DATE_EPOCH bounds every time
// when -T is absent), except that compat=debian keeps the files' own times
// whatever -T says, as Debian's makefs does; -s, -m and -M are accepted and
// ignored, as FreeBSD's makefs ignores them for cd9660, with a warning.
// Boot image paths are relative to the command's directory, as makefs
// takes them relative to its working directory.

func init() { RegisterFSType(cd9660FSType) }

// cd9660FSType is the cd9660 type: imgkit/cd9660's option table and
// WriteFile.
var cd9660FSType = FSType[cd9660.Options]{
	Name:        "cd9660",
	Description: "ISO 9660",
	Help:        cd9660.OptionHelp,
	ParseOption: cd9660.ParseOption,
	ErrOption:   cd9660.ErrOption,
	Common: func(o *cd9660.Options) Common {
		return Common{Timestamp: &o.Timestamp, ClampTimes: &o.ClampTimes, Cache: &o.Cache, Warn: &o.Warn}
	},
	Flags:     cd9660Flags,
	Files:     cd9660Files,
	WriteFile: cd9660.WriteFile,

	// compat=debian keeps the files' own times whatever -T says.
	SourceTimes: (*cd9660.Options).SourceTimes,
}

// cd9660Files returns the files o reads: the El Torito boot images, then
// the generic boot image.
func cd9660Files(o *cd9660.Options) []string {
	var files []string
	for _, im := range o.Boot.Images {
		if im.File != "" {
			files = append(files, im.File)
		}
	}
	if o.Boot.GenericImage != "" {
		files = append(files, o.Boot.GenericImage)
	}
	return files
}

// cd9660Flags copies -s, -M and -m into o (the writer warns that it
// ignores them) and resolves the boot image paths against the command's
// directory.
func cd9660Flags(c *Command, o *cd9660.Options) error {
	o.Size, o.MinSize, o.MaxSize = c.Size, c.MinSize, c.MaxSize
	for i := range o.Boot.Images {
		if f := o.Boot.Images[i].File; f != "" {
			o.Boot.Images[i].File = c.abs(f)
		}
	}
	if o.Boot.GenericImage != "" {
		o.Boot.GenericImage = c.abs(o.Boot.GenericImage)
	}
	return nil
}
