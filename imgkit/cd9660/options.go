package cd9660

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/makefs/fsopt"
)

// Options are the makefs -t cd9660 options: the -o fs-options of
// makefs(8)'s cd9660 type as typed fields, plus the global makefs options
// that apply. The zero value makes the volume makefs makes with no
// options: interchange level 2, no Rock Ridge, 150 sectors of padding at
// the end.
type Options struct {
	ISOLevel           int    // isolevel (l): 1, 2 or 3 (multi-extent files); 0 means 2
	RockRidge          bool   // rockridge (R): Rock Ridge (SUSP/RRIP) entries
	Joliet             bool   // joliet: a Joliet supplementary volume (not in makefs)
	AllowDeepTrees     bool   // allow-deep-trees (D): directories deeper than 8 levels without Rock Ridge
	RelocateDeepTrees  bool   // relocate-deep-trees: with Rock Ridge, move deep directories into RR_MOVED as makefs does (not in makefs)
	AllowMaxName       bool   // allow-max-name (a): accepted; makefs does not implement it
	AllowIllegalChars  bool   // allow-illegal-chars (i): accepted; makefs converts names regardless
	AllowLowercase     bool   // allow-lowercase: accepted; makefs converts names regardless
	AllowMultidot      bool   // allow-multidot (m): keep every dot of a file name (level 2 and up)
	OmitTrailingPeriod bool   // omit-trailing-period (o): no "." in file identifiers without an extension
	NoTrailingPadding  bool   // no-trailing-padding=0: no 150 sectors of padding (see DETAILS.md)
	KeepBadImages      bool   // keep-bad-images (K): accepted; an image that fails is never kept
	Verbose            int    // verbose (v): accepted, 0 to 2; prints nothing
	Label              string // label (L): Volume Identifier, up to 32 d-characters
	VolumeSetID        string // volumeid (V): Volume Set Identifier, up to 128 a-characters
	ApplicationID      string // applicationid (A): up to 128 a-characters
	Publisher          string // publisher (P): up to 128 a-characters
	Preparer           string // preparer (p): up to 128 a-characters
	Archimedes         bool   // archimedes: NetBSD's RISC OS extension (archimedes.go; FreeBSD's makefs has no such option)
	Compat             Compat // compat: CompatFreeBSD (the default) or CompatDebian, the bytes of Debian's makefs (compat.go)

	// Boot holds the El Torito options: bootimage and the options that
	// follow it, bootimagedir, generic-bootimage and chrp-boot.
	Boot Boot

	// Global makefs options. FreeBSD's makefs ignores -s, -m and -M for
	// cd9660 (cd9660_makefs never reads them): the image is always the
	// smallest that holds the tree. They are accepted and ignored here
	// too, with a warning, so that a command line makes makefs's bytes.
	Size    int64 // -s
	MinSize int64 // -M
	MaxSize int64 // -m

	// Timestamp (-T), when not the zero time, is the time of every file
	// and directory and of the volume. With ClampTimes it is only an
	// upper bound, the rule of SOURCE_DATE_EPOCH: later times become it,
	// earlier ones are kept, and the volume's own dates are it. Without
	// Timestamp the volume's dates are the root directory's modification
	// time (makefs takes the clock).
	Timestamp  time.Time
	ClampTimes bool

	// Cache holds the block cache's options (imgkit/bcache) for the image
	// file WriteFile writes; nil means the defaults.
	Cache *bcache.Options

	// Warn receives warnings; nil discards.
	Warn io.Writer
}

// check rejects what no volume can be made with, naming the field.
func (o *Options) check() error {
	if o.ISOLevel < 0 || o.ISOLevel > 3 {
		return fmt.Errorf("%w: Options.ISOLevel %d: must be 1, 2 or 3", ErrParams, o.ISOLevel)
	}
	if o.Compat != CompatFreeBSD && o.Compat != CompatDebian {
		return fmt.Errorf("%w: Options.Compat %d: must be CompatFreeBSD or CompatDebian", ErrParams, o.Compat)
	}
	if o.AllowMultidot && o.ISOLevel == 1 {
		return fmt.Errorf("%w: Options.AllowMultidot requires Options.ISOLevel 2 or 3", ErrParams)
	}
	if err := checkChars("Label", o.Label, 32, isDChar); err != nil {
		return err
	}
	for _, f := range []struct{ name, v string }{{"VolumeSetID", o.VolumeSetID}, {"ApplicationID", o.ApplicationID},
		{"Publisher", o.Publisher}, {"Preparer", o.Preparer}} {
		if err := checkChars(f.name, f.v, 128, isAChar); err != nil {
			return err
		}
	}
	return nil
}

// nameRules are the name conversion rules of the options.
func (o *Options) nameRules() nameRules {
	level := o.ISOLevel
	if level == 0 {
		level = 2
	}
	return nameRules{level: level, allowMultidot: o.AllowMultidot, omitTrailingPeriod: o.OmitTrailingPeriod,
		debianLevel1: o.debian(), archimedes: o.Archimedes}
}

// systemID is the System Identifier makefs writes: FreeBSD's, or
// NetBSD's with compat=debian.
func (o *Options) systemID() string {
	if o.debian() {
		return "NetBSD"
	}
	return "FreeBSD"
}

// isDChar reports whether c is a d-character (ECMA-119 7.4.1): A-Z, 0-9, _.
func isDChar(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// isAChar reports whether c is an a-character (ECMA-119 7.4.1): the
// d-characters, space and !"%&'()*+,-./:;<=>?.
func isAChar(c byte) bool {
	return isDChar(c) || c >= '%' && c <= '?' || c >= ' ' && c <= '"'
}

// checkChars checks that s, an identifier field of Options, is at most
// n characters that pass ok, as makefs's cd9660_arguments_set_string
// checks them (lower-case letters pass, and ParseOption upper-cases them).
func checkChars(field, s string, n int, ok func(byte) bool) error {
	if len(s) > n {
		return fmt.Errorf("%w: Options.%s %q: at most %d characters", ErrParams, field, s, n)
	}
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) && !(s[i] >= 'a' && s[i] <= 'z') {
			return fmt.Errorf("%w: Options.%s %q: %q is not allowed (ECMA-119 7.4)", ErrParams, field, s, s[i])
		}
	}
	return nil
}

// identifier validates and upper-cases value, the value of the string
// option key.
func identifier(key, value string, n int, ok func(byte) bool) (string, error) {
	if err := checkChars("x", value, n, ok); err != nil {
		kind := "a"
		if n == 32 {
			kind = "d"
		}
		return "", fmt.Errorf("%w: %s: %q must be at most %d %s-characters", ErrOption, key, value, n, kind)
	}
	b := []byte(value)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b), nil
}

// An optionSpec is one -o option of makefs -t cd9660, a row of
// optionTable: what OptionHelp says about it and how ParseOption applies
// it.
type optionSpec = fsopt.Spec[Options]

// boolOption is a makefs boolean option: no value means on; a value is a
// number, 0 or 1.
func boolOption(key, letter, field, usage string, p func(o *Options) *bool) optionSpec {
	return optionSpec{Option: fsopt.Option{Key: key, Letter: letter, Field: field, Default: "off", Usage: usage},
		Set: func(o *Options, key, value string) error {
			v, err := num(key, value, 0, 1)
			*p(o) = v == 1
			return err
		}}
}

// stringOption is an identifier option of at most n characters of the
// kind ok accepts.
func stringOption(key, letter, field, usage string, n int, ok func(byte) bool, p func(o *Options) *string) optionSpec {
	return optionSpec{Option: fsopt.Option{Key: key, Letter: letter, Field: field, Default: "blanks", Usage: usage},
		Set: func(o *Options, key, value string) error {
			s, err := identifier(key, value, n, ok)
			if err == nil {
				*p(o) = s
			}
			return err
		}}
}

// intOption is a number option from minv to maxv, def by default.
func intOption(key, letter, field, def, usage string, minv, maxv int64, p func(o *Options) *int) optionSpec {
	return optionSpec{Option: fsopt.Option{Key: key, Letter: letter, Field: field, Default: def, Usage: usage},
		Set: func(o *Options, key, value string) error {
			v, err := num(key, value, minv, maxv)
			if err == nil {
				*p(o) = int(v)
			}
			return err
		}}
}

// optionTable lists the -o options of makefs -t cd9660 that this package
// writes (the El Torito ones live with the boot catalogue), sorted
// bytewise by name. ParseOption and OptionHelp both read it.
//
// It is made on first use, not at package initialisation: every run of
// the fixturegen binary initialises this package, and most never read it.
var optionTable = sync.OnceValue(func() fsopt.Table[Options] {
	return withBootOptions([]optionSpec{
		boolOption("allow-deep-trees", "D", "AllowDeepTrees", "allow directories deeper than 8 levels (without Rock Ridge)",
			func(o *Options) *bool { return &o.AllowDeepTrees }),
		boolOption("allow-illegal-chars", "i", "AllowIllegalChars", "accepted; makefs converts names regardless",
			func(o *Options) *bool { return &o.AllowIllegalChars }),
		boolOption("allow-lowercase", "", "AllowLowercase", "accepted; makefs converts names regardless",
			func(o *Options) *bool { return &o.AllowLowercase }),
		boolOption("allow-max-name", "a", "AllowMaxName", "accepted; makefs does not implement it",
			func(o *Options) *bool { return &o.AllowMaxName }),
		boolOption("allow-multidot", "m", "AllowMultidot", "keep every dot of a file name (isolevel 2 and 3)",
			func(o *Options) *bool { return &o.AllowMultidot }),
		stringOption("applicationid", "A", "ApplicationID", "Application Identifier, up to 128 a-characters", 128, isAChar,
			func(o *Options) *string { return &o.ApplicationID }),
		boolOption("archimedes", "", "Archimedes", "RISC OS ARCHIMEDES blocks for names ,xxx and !name, as NetBSD's makefs writes them",
			func(o *Options) *bool { return &o.Archimedes }),
		fsopt.CompatRow(ErrOption, "freebsd, or debian for the bytes of Debian's makefs (NetBSD's of 2019); not in makefs",
			func(o *Options) *Compat { return &o.Compat }),
		intOption("isolevel", "l", "ISOLevel", "2",
			"ISO 9660 interchange level: 1 (8.3 names), 2 (30 characters), 3 (as 2, and files of 4 GiB or more in sections)", 1, 3,
			func(o *Options) *int { return &o.ISOLevel }),
		boolOption("joliet", "", "Joliet", "add a Joliet volume (UCS-2 names up to 64 characters); not in makefs",
			func(o *Options) *bool { return &o.Joliet }),
		boolOption("keep-bad-images", "K", "KeepBadImages", "accepted; an image that fails is never kept",
			func(o *Options) *bool { return &o.KeepBadImages }),
		stringOption("label", "L", "Label", "Volume Identifier, up to 32 d-characters", 32, isDChar,
			func(o *Options) *string { return &o.Label }),
		{Option: fsopt.Option{Key: "no-trailing-padding", Field: "NoTrailingPadding", Default: "1",
			Usage: "as in makefs, the value says whether to pad: =0 leaves out the 150 sectors of padding"},
			Set: func(o *Options, key, value string) error {
				v, err := num(key, value, 0, 1)
				o.NoTrailingPadding = err == nil && v == 0
				return err
			}},
		boolOption("omit-trailing-period", "o", "OmitTrailingPeriod", `no "." in file identifiers without an extension`,
			func(o *Options) *bool { return &o.OmitTrailingPeriod }),
		stringOption("preparer", "p", "Preparer", "Data Preparer Identifier, up to 128 a-characters", 128, isAChar,
			func(o *Options) *string { return &o.Preparer }),
		stringOption("publisher", "P", "Publisher", "Publisher Identifier, up to 128 a-characters", 128, isAChar,
			func(o *Options) *string { return &o.Publisher }),
		boolOption("relocate-deep-trees", "", "RelocateDeepTrees",
			"with rockridge, relocate directories deeper than 8 levels into RR_MOVED as makefs does (see the package documentation)",
			func(o *Options) *bool { return &o.RelocateDeepTrees }),
		boolOption("rockridge", "R", "RockRidge", "Rock Ridge extensions: POSIX names, modes, links, devices, deep trees",
			func(o *Options) *bool { return &o.RockRidge }),
		intOption("verbose", "v", "Verbose", "0", "accepted, 0 to 2; prints nothing", 0, 2,
			func(o *Options) *int { return &o.Verbose }),
		stringOption("volumeid", "V", "VolumeSetID", "Volume Set Identifier, up to 128 a-characters", 128, isAChar,
			func(o *Options) *string { return &o.VolumeSetID }),
	})
})

// OptionHelp describes every -o option of makefs -t cd9660 this package
// takes, sorted bytewise by name as makefs(8) documents them: its name,
// its one-letter key, the field of Options it sets, its default and its
// meaning. ParseOption accepts exactly these names and letters.
func OptionHelp() []fsopt.Option { return optionTable().Help() }

// num parses the value of option key as a makefs number from minv to maxv
// (fsopt.Number: base 10, suffixes, products; no value means 1).
func num(key, value string, minv, maxv int64) (int64, error) {
	return fsopt.Number(ErrOption, key, value, minv, maxv)
}

// ParseOption sets one -o option on o, by its name or one-letter key, as
// makefs -t cd9660 -o key=value does (OptionHelp lists them). Numbers are
// read as makefs reads them (fsopt.ParseNumber); a boolean option is on
// without a value and otherwise takes 0 or 1; identifiers are checked for
// their character set and length and upper-cased. Errors name the option
// and wrap ErrOption.
func ParseOption(o *Options, key, value string) error {
	return optionTable().Parse(o, key, value, unknownOption)
}

// unknownOption is ParseOption's error for a key that no option has.
func unknownOption(key string) error {
	return fmt.Errorf("%w: unknown cd9660 option %q", ErrOption, key)
}
