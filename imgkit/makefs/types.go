package makefs

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/fixturegen/fixturegen/imgkit/makefs/fsopt"
)

// Type is a file system type that -t names.
//
// A new type is one small file in this package that calls RegisterFSType
// from an init function with an FSType over its package's Options type:
//   - Name, the -t name, and Description, what it makes ("ISO 9660"),
//     for help;
//   - Help, ParseOption and ErrOption, the package's -o option table, its
//     parser of one key=value and the sentinel its bad options wrap;
//   - Common, pointers to its Options' Timestamp, ClampTimes, Cache and Warn
//     fields (nil for one it lacks), which every type's Write fills the
//     same way;
//   - Flags, the copy of the global flags it takes (-s, -M, -m, -O, -S...)
//     into its Options, or nil;
//   - Files, the host files an Options value reads besides the tree (a
//     bootstrap, boot images), which a catalogue makes inputs of the
//     image, or nil when no option names a file;
//   - WriteFile, the package's WriteFile(path, fstree.Source, *Options).
//
// The -o loop, the time rule, the block-cache mode, the source tree (with
// extra directories and -F/-x) and the "makefs: " prefix of WriteFile's
// errors are FSType's, not the type's. Register takes a Type directly,
// for a type that does not fit that shape.
type Type struct {
	Name string
	// Description names what the type makes, for help: "ISO 9660",
	// "FAT"; "" for none.
	Description string
	// Help lists the type's -o options; nil when the type has none to
	// describe. Errors of Write that name an Options field are said with
	// the -o key it lists for the field.
	Help func() []fsopt.Option
	// Write builds c.Image from c; warnings go to warn.
	Write func(c *Command, warn io.Writer) error
	// Inputs says what c's -o options make Write depend on besides the
	// source tree and the global flags (see OptionInputs); nil when they
	// name no file and set no time.
	Inputs func(c *Command) (OptionInputs, error)
}

// OptionInputs is what the -o options of a command make its image depend
// on besides the source tree and the global flags, as a catalogue plans
// the command's inputs.
type OptionInputs struct {
	// Files are the host files the options name that the type reads (msdos
	// bootstrap, cd9660 bootimage and generic-bootimage), absolute, in the
	// type's order.
	Files []string
	// Timestamp is set when the options give every time of the image
	// (msdos -o timestamp), so that the files' own times do not reach it.
	Timestamp bool
	// FileTimes is set when the options keep the files' own times whatever
	// -T says (cd9660 -o compat=debian, as Debian's makefs does), so that
	// they reach the image even with -T.
	FileTimes bool
}

// OptionInputs returns what c's -o options make the image depend on (see
// Type.Inputs), parsing them as Run does; an option Run would refuse is
// the same error.
func (c *Command) OptionInputs() (OptionInputs, error) {
	t, err := lookupType(c.Type)
	if err != nil || t.Inputs == nil {
		return OptionInputs{}, err
	}
	in, err := t.Inputs(c)
	return in, reword(err, t.Help)
}

// The registry of types. It is guarded by typesMu, so that a program (or
// a test) may register a type while commands run in other goroutines.
var (
	typesMu sync.RWMutex
	types   = map[string]Type{}
)

// Register adds a file system type. It is meant to be called from init
// functions; registering a name twice panics.
func Register(t Type) {
	typesMu.Lock()
	defer typesMu.Unlock()
	if _, dup := types[t.Name]; dup {
		panic("makefs: type " + t.Name + " registered twice")
	}
	types[t.Name] = t
}

// unregister removes the type name, for this package's tests to undo a
// Register; tests elsewhere register their types once per test binary
// under names of their own.
func unregister(name string) {
	typesMu.Lock()
	defer typesMu.Unlock()
	delete(types, name)
}

// Lookup returns the registered type name.
func Lookup(name string) (Type, bool) {
	typesMu.RLock()
	defer typesMu.RUnlock()
	t, ok := types[name]
	return t, ok
}

// Types returns the names of the registered types, sorted.
func Types() []string {
	typesMu.RLock()
	names := make([]string, 0, len(types))
	for n := range types {
		names = append(names, n)
	}
	typesMu.RUnlock()
	slices.Sort(names)
	return names
}

// Run executes the command: with Help, it writes the type's -o options to
// stdout; otherwise it builds the image, writing warnings to stderr.
// Either writer may be nil to discard what would go there.
func (c *Command) Run(stdout, stderr io.Writer) error {
	if stdout == nil {
		stdout = io.Discard
	}
	t, err := lookupType(c.Type)
	if err != nil {
		return err
	}
	if c.Help {
		var b strings.Builder
		b.WriteString(optionHelpIntro + "\n")
		writeOptionHelp(&b, t)
		_, err := io.WriteString(stdout, b.String())
		return err
	}
	if stderr == nil {
		stderr = io.Discard
	}
	return reword(t.Write(c, stderr), t.Help)
}

// lookupType returns the registered type that -t name names. An unknown
// name is a *UsageError that lists the registered types, so that a typo
// shows what was meant.
func lookupType(name string) (Type, error) {
	t, ok := Lookup(name)
	if !ok {
		return Type{}, usagef("makefs: unknown file system type %q (types: %s)", name, strings.Join(Types(), ", "))
	}
	return t, nil
}

// TypesHelp lists the registered file system types, each with its -o
// options, as "fixturegen help makefs" prints them.
func TypesHelp() string {
	names := Types()
	if len(names) == 0 {
		return "File system types: none yet.\n"
	}
	var b strings.Builder
	b.WriteString("File system types: " + strings.Join(names, ", ") + ".\n\n")
	b.WriteString(optionHelpIntro)
	for _, n := range names {
		if t, ok := Lookup(n); ok { // unless unregistered since Types
			b.WriteString("\n")
			writeOptionHelp(&b, t)
		}
	}
	return b.String()
}

// optionHelpIntro says how to read the lists writeOptionHelp writes.
const optionHelpIntro = "Options for -o, one per line: key, one-letter alias (- for none),\n" +
	"default, and what the option sets.\n"

// writeOptionHelp writes the -o options of t as aligned columns under a
// line naming the type, or says that t describes none.
func writeOptionHelp(w io.Writer, t Type) {
	fmt.Fprintf(w, "-t %s:\n", t.Name)
	var opts []fsopt.Option
	if t.Help != nil {
		opts = t.Help()
	}
	if len(opts) == 0 {
		fmt.Fprintf(w, "  no -o options described\n")
		return
	}
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, o := range opts {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", o.Key, dash(o.Letter), dash(o.Default), o.Usage)
	}
	tw.Flush()
}

// globalFlags names the makefs flag that sets a field of a format's
// Options, for the fields that the flags common to every type set.
var globalFlags = map[string]string{
	"Size": "-s", "MaxSize": "-m", "MinSize": "-M", "Offset": "-O", "SectorSize": "-S", "Timestamp": "-T",
	"FreeBlocks": "-b", "FreeBlocksPct": "-b", "FreeFiles": "-f", "FreeFilesPct": "-f", "Roundup": "-R",
	"ByteOrder": "-B",
}

// fieldWords matches what a library error says of an Options field:
// "Options.SectorsPerCluster", with a value "Options.SectorsPerCluster = 4",
// or a field inside one, "Options.Boot.Images[1].File".
var fieldWords = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\bOptions\.([A-Z][A-Za-z0-9]*(?:\.[A-Z][A-Za-z0-9]*|\[[0-9]*\])*)(?: = ([^\s,;()]+))?`)
})

// elementIndex matches the index of a slice element in a field path.
var elementIndex = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[[0-9]+\]`) })

// optionKey returns the -o key that sets field, a path as fieldWords
// matches it: the key listed for the path itself, with indexes written
// "[]", or else for the nearest field that holds it ("Boot.Images[1].File"
// is set by the key of "Boot.Images").
func optionKey(keys map[string]string, field string) (string, bool) {
	path := elementIndex().ReplaceAllString(field, "[]")
	for path != "" {
		if key, ok := keys[path]; ok {
			return key, true
		}
		if trimmed, ok := strings.CutSuffix(path, "[]"); ok {
			path = trimmed
			continue
		}
		i := strings.LastIndexByte(path, '.')
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return "", false
}

// reword says err in the command's words: every Options field it names
// becomes the flag that sets it ("-s", "-s 1m") or the -o option of help
// ("sectors_per_cluster", "-o sectors_per_cluster=4" with a value); fields
// neither names are left as they are. The result wraps err, so errors.Is
// and errors.As see what they saw before.
func reword(err error, help func() []fsopt.Option) error {
	if err == nil || !fieldWords().MatchString(err.Error()) {
		return err
	}
	keys := map[string]string{}
	if help != nil {
		for _, o := range help() {
			if _, dup := keys[o.Field]; !dup {
				keys[o.Field] = o.Key // the first key that sets the field, not an alias listed later
			}
		}
	}
	msg := fieldWords().ReplaceAllStringFunc(err.Error(), func(m string) string {
		sub := fieldWords().FindStringSubmatch(m)
		field, value := sub[1], sub[2]
		if flag, ok := globalFlags[field]; ok {
			if value != "" {
				return flag + " " + value
			}
			return flag
		}
		if key, ok := optionKey(keys, field); ok {
			if value != "" {
				return "-o " + key + "=" + value
			}
			return key
		}
		return m
	})
	return &rewordedError{msg: msg, err: err}
}

// rewordedError is an error of a library said in the command's words.
type rewordedError struct {
	msg string
	err error
}

func (e *rewordedError) Error() string { return e.msg }
func (e *rewordedError) Unwrap() error { return e.err }

// optionError turns an error of a format's ParseOption for opt into the
// command's error: a bad option (one that wraps the format's errOption
// sentinel) is a *UsageError said without the sentinel's package prefix
// ("ffs: bad option: "), since "makefs: -o key=value" already names what
// is wrong; anything else is a plain error that wraps err.
func optionError(opt Option, err, errOption error) error {
	if errors.Is(err, errOption) {
		return usagef("makefs: -o %s: %s", opt, trimPrefix(err, errOption.Error()))
	}
	return fmt.Errorf("makefs: -o %s: %w", opt, err)
}

// trimPrefix returns the message of err without prefix and the ": " after
// it: a library's package name ("bcache") or sentinel ("fstree: bad
// timestamp"), which a message that names the flag or variable already
// says better.
func trimPrefix(err error, prefix string) string {
	return strings.TrimPrefix(err.Error(), prefix+": ")
}

// unknownOption is the *UsageError for an -o item whose key is none of
// the keys (or one-letter aliases) that help lists for the type name: it
// names the key and lists the type's keys, and points at "-o help", which
// says what each one sets.
func unknownOption(name string, opt Option, help []fsopt.Option) error {
	keys := make([]string, 0, len(help))
	for _, o := range help {
		keys = append(keys, o.Key)
	}
	return usagef("makefs: -o %s: unknown option %q for -t %s (keys: %s; -o help describes them)",
		opt, opt.Key, name, strings.Join(keys, ", "))
}

// knownKey reports whether key is the key or the one-letter alias of one
// of the options help lists.
func knownKey(help []fsopt.Option, key string) bool {
	for _, o := range help {
		if key == o.Key || o.Letter != "" && key == o.Letter {
			return true
		}
	}
	return false
}
