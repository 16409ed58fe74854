package makefs

import (
	"fmt"
	"io"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/makefs/fsopt"
)

// FSType is what a file system package provides to be a makefs type: its
// -o option table and its WriteFile, both over its own Options type O.
// RegisterFSType turns it into a Type whose Write does what every type
// does: it parses the -o options into a new O, lets Flags copy the global
// flags, fills the Common fields (the time rule, the block cache, the
// warnings), builds the source tree and calls WriteFile.
type FSType[O any] struct {
	Name string // the -t name
	// Description names what the type makes, for help: "ISO 9660".
	Description string

	// Help lists the -o options (fsopt.Option rows); ParseOption sets
	// one of them on an Options; ErrOption is the sentinel its errors
	// wrap when the option itself is bad (a *UsageError then).
	Help        func() []fsopt.Option
	ParseOption func(o *O, key, value string) error
	ErrOption   error
	// Hints, when a key is in it, replaces ParseOption's error for that
	// key with "makefs: -o key=value: " and the hint (a usage error).
	Hints map[string]string

	// Common returns pointers to the fields of O that every type has;
	// nil when O has none of them.
	Common func(o *O) Common
	// Flags copies the global flags the type takes (-s, -S, -O...) from
	// c into o, after the -o options; nil when it takes none.
	Flags func(c *Command, o *O) error

	// Files returns the host files that o makes WriteFile read besides
	// the source tree: the files its options name (a bootstrap, boot
	// images), as WriteFile opens them once Flags has resolved them; nil
	// when the type has no such option. It is part of the type's
	// contract: a catalogue plans an entry's inputs with it, so a file
	// option left out here is a file whose changes rebuild nothing.
	Files func(o *O) []string

	// WriteFile writes the image file path from src with o.
	WriteFile func(path string, src fstree.Source, o *O) error

	// SourceTimes, when not nil, gives the time rule the source tree is
	// built with for o, after the Common fields are filled, in place of
	// the command line's (-T, else SOURCE_DATE_EPOCH): cd9660's
	// compat=debian keeps the files' own times whatever -T says, as
	// Debian's makefs does, which WriteFile cannot do with a tree whose
	// times -T has replaced already.
	SourceTimes func(o *O) (timestamp time.Time, clamp bool)
}

// Common points at the fields of a type's Options that are filled the same
// way for every type. A nil pointer is a field the type does not have,
// left out.
type Common struct {
	// Timestamp and ClampTimes get the time rule of Command.TreeOptions
	// (-T, else SOURCE_DATE_EPOCH) unless -T is absent and the -o options
	// set Timestamp already.
	Timestamp  *time.Time
	ClampTimes *bool
	Cache      **bcache.Options // Command.CacheOptions (FIXTUREGEN_CACHE)
	Warn       *io.Writer       // the writer Run gives for warnings
}

// RegisterFSType registers f as the makefs type f.Name; it is meant to be
// called from init functions, as Register is.
func RegisterFSType[O any](f FSType[O]) {
	Register(Type{Name: f.Name, Description: f.Description, Help: f.Help, Write: f.write, Inputs: f.inputs})
}

// inputs is the Type.Inputs of f: the -o options and the global flags
// parsed as Write parses them, then what they read (f.Files) and whether
// they set the times (a Common Timestamp the options set) or keep the
// files' own times whatever -T says (f.SourceTimes drops it).
func (f FSType[O]) inputs(c *Command) (OptionInputs, error) {
	o, err := f.parse(c)
	if err != nil {
		return OptionInputs{}, err
	}
	var in OptionInputs
	if f.Files != nil {
		for _, p := range f.Files(o) {
			in.Files = append(in.Files, c.abs(p))
		}
	}
	if f.Common != nil {
		if ts := f.Common(o).Timestamp; ts != nil && !ts.IsZero() {
			in.Timestamp = true
		}
	}
	if f.SourceTimes != nil && !c.Timestamp.IsZero() {
		// The time rule needs the Common fields that -T fills.
		filled, err := f.options(c, io.Discard)
		if err != nil {
			return OptionInputs{}, err
		}
		if ts, clamp := f.SourceTimes(filled); ts.IsZero() && !clamp {
			in.FileTimes = true
		}
	}
	return in, nil
}

// write is the Type.Write of f.
func (f FSType[O]) write(c *Command, warn io.Writer) error {
	o, err := f.options(c, warn)
	if err != nil {
		return err
	}
	topts, err := c.TreeOptions()
	if err != nil {
		return err
	}
	if f.SourceTimes != nil {
		topts.Timestamp, topts.ClampTimes = f.SourceTimes(o)
	}
	t, err := c.tree(topts, warn)
	if err != nil {
		return err
	}
	if err := f.WriteFile(c.Image, t, o); err != nil {
		return fmt.Errorf("makefs: %w", err) // Run rewords the Options fields it names
	}
	return nil
}

// options turns the command line into an O: the -o options in order, the
// type's global flags, then the Common fields.
func (f FSType[O]) options(c *Command, warn io.Writer) (*O, error) {
	o, err := f.parse(c)
	if err != nil {
		return nil, err
	}
	var com Common
	if f.Common != nil {
		com = f.Common(o)
	}
	if err := com.fill(c, warn); err != nil {
		return nil, err
	}
	return o, nil
}

// parse turns the -o options of c, in order, and the type's global flags
// into a new O, without the Common fields.
func (f FSType[O]) parse(c *Command) (*O, error) {
	o := new(O)
	for _, opt := range c.Opts {
		// A key without a value is an empty one, as makefs's set_option
		// makes it.
		if err := f.ParseOption(o, opt.Key, opt.Value); err != nil {
			if hint, ok := f.Hints[opt.Key]; ok {
				return nil, usagef("makefs: -o %s: %s", opt, hint)
			}
			if f.Help != nil {
				if help := f.Help(); len(help) > 0 && !knownKey(help, opt.Key) {
					return nil, unknownOption(f.Name, opt, help)
				}
			}
			return nil, optionError(opt, err, f.ErrOption)
		}
	}
	if f.Flags != nil {
		if err := f.Flags(c, o); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// fill sets the fields com points at from c: the time rule unless -T is
// absent and the -o options set a time already, the block-cache mode and
// the warnings writer.
func (com Common) fill(c *Command, warn io.Writer) error {
	if com.Timestamp != nil && (!c.Timestamp.IsZero() || com.Timestamp.IsZero()) {
		topts, err := c.TreeOptions()
		if err != nil {
			return err
		}
		*com.Timestamp = topts.Timestamp
		if com.ClampTimes != nil {
			*com.ClampTimes = topts.ClampTimes
		}
	}
	cache, err := c.CacheOptions()
	if err != nil {
		return err
	}
	if com.Cache != nil {
		*com.Cache = cache
	}
	if com.Warn != nil {
		*com.Warn = warn
	}
	return nil
}
