// Package makefs runs the command line of FreeBSD makefs(8) in-process:
//
//	makefs [-DxZ] [-B endian] [-b free-blocks] [-d debug-mask] [-F mtree-specfile]
//	       [-f free-files] [-M minimum-size] [-m maximum-size] [-N userdb-dir]
//	       [-O offset] [-o fs-options] [-R roundup-size] [-S sector-size]
//	       [-s image-size] [-T timestamp] [-t fs-type] [--metadata=git|host]
//	       image-file directory|manifest [extra-directory ...]
//
// Parse reads a command line into a Command: the flags every file system
// type shares, with makefs's one number syntax, the source tree (a
// directory or an mtree manifest, extra directories merged into it, the -F
// spec applied), the time rule (-T, or else SOURCE_DATE_EPOCH) and the
// block-cache mode (FIXTUREGEN_CACHE). Command.Run builds the image with
// the registered type that -t names; the Example shows both.
//
// --metadata is fixturegen's own long option: --metadata=git gives the
// source files only what git keeps of a checkout (fstree.MetadataGit), so
// that the image is the same in every checkout whatever its owner, umask
// and hard links; --metadata=host, the default, keeps the host's, as
// makefs(8) does. Catalogue entries use git unless they say otherwise.
//
// # Types
//
// A file system type joins with RegisterFSType, giving only its -o option
// table, the global flags it takes and its WriteFile: cd9660.go, ffs.go and
// msdos.go are each the whole of one -t type, and a program can register
// a type of its own from an init function.
//
// # Errors
//
// Errors of Parse and Run are said in the command's words (flags, -o keys),
// prefixed with "makefs: "; errors a command line's syntax causes are
// *UsageError values: an unknown -t lists the registered types, an unknown
// -o key the keys of the type.
package makefs

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/makefs/fsopt"
	"github.com/fixturegen/fixturegen/imgkit/progress"
	"github.com/fixturegen/fixturegen/internal/getopt"
)

// Command is a parsed makefs command line. Paths are absolute.
type Command struct {
	Type string   // -t, default "ffs"
	Opts []Option // -o, repeatable, comma-separated key[=value] in command-line order

	// Help is set when "help" is among the -o items: Run then prints the
	// type's -o options instead of building an image, and Image, Manifest
	// and Dirs are empty.
	Help bool

	Size, MinSize, MaxSize, Offset, Roundup int64 // -s (sets min and max), -m, -M, -O, -R; 0 = unset
	FreeBlocks, FreeFiles                   int64 // -b, -f
	FreeBlocksPct, FreeFilesPct             int   // -b, -f with a '%' suffix

	SectorSize int       // -S; 0 = unset
	Timestamp  time.Time // -T: a file's modification time, or seconds since the Epoch; zero = unset
	// TimestampArg is the argument of the last -T as given: the file
	// whose modification time Timestamp is, when one exists.
	TimestampArg string
	// TimestampFromFile is set when Timestamp is the modification time
	// of the file TimestampArg names.
	TimestampFromFile bool
	// Metadata is --metadata: fstree.MetadataGit gives the walked tree
	// only what git keeps; the zero value, fstree.MetadataHost, keeps the
	// host's owners, modes and hard links.
	Metadata  fstree.Metadata
	Spec      string           // -F
	Exclude   bool             // -x
	Sparse    bool             // -Z (or the older -p)
	ByteOrder binary.ByteOrder // -B; nil = unset
	Dups      int              // -D, counted: duplicate paths in a manifest are a warning (1) or ignored (2 or more)
	Debug     int64            // -d debug mask (accepted, unused)
	UserDB    string           // -N

	Image       string   // image-file
	ImageArg    int      // the index of image-file in the command line Parse read
	Manifest    string   // the second argument when it is an mtree manifest, or "-" for Stdin
	ManifestArg string   // that argument as given, for messages
	Dirs        []string // source directories: the second argument when it is one, then every extra-directory

	Dir    string              // working directory that relative paths resolved against
	Getenv func(string) string // environment (SOURCE_DATE_EPOCH, FIXTUREGEN_CACHE); nil = os.Getenv
	Stdin  io.Reader           // read for the manifest "-"; nil = empty

	// Progress, when not nil, is told how far Run is, so that a caller
	// can show how far a long build is from another goroutine: its step
	// "writing" of the image's size once the image is laid out, and the
	// bytes written into the image as they are written
	// (bcache.Options.Progress).
	Progress *progress.Meter

	// HostOwners, when not nil, is called with each owner name of a spec
	// (uname without uid, or with group gname without gid) that the tree
	// looks up in the host's user and group databases, as it does
	// without -N, so that a caller can learn that the image depends on
	// them (the catalogue planner does).
	HostOwners func(name string, group bool)
}

// Option is one key[=value] item of -o.
type Option struct {
	Key, Value string
	HasValue   bool
}

// String spells o as it was given: key or key=value.
func (o Option) String() string {
	if o.HasValue {
		return o.Key + "=" + o.Value
	}
	return o.Key
}

// UsageError is an error in a command line's syntax: an unknown flag, a
// missing argument, a value a flag or -o key does not accept.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// OptString is the getopt(3) option string of makefs.
const OptString = "B:b:Dd:f:F:M:m:N:O:o:pR:s:S:t:T:xZ"

// LongOptions are the long options fixturegen adds to makefs's command
// line, each written --name=value.
var LongOptions = []string{"metadata"}

// flag is one option of a command line as getopt(3) reads it, or one of
// LongOptions.
type flag = getopt.Option

// getoptSpec is makefs's command line for the shared getopt scanner: BSD
// getopt(3) with OptString, which stops at the first operand, and
// LongOptions, each written --name=value.
var getoptSpec = func() *getopt.Spec {
	s := &getopt.Spec{Short: OptString}
	for _, name := range LongOptions {
		s.Long = append(s.Long, getopt.Long{Name: name, Arg: getopt.EqualsArg})
	}
	return s
}()

// getoptFlags splits a makefs command line into its flags and its operands as
// BSD getopt(3) does with OptString: flags may be grouped ("-xZ"), an
// argument may be attached ("-s10m") or be the next word; parsing stops at
// "--" (dropped), at "-" and at the first word that does not start with
// '-'. A word "--name=value" before that is one of LongOptions. Errors are
// *UsageError values.
func getoptFlags(args []string) (flags []flag, operands []string, err error) {
	flags, operands, err = getoptSpec.Parse(args)
	if err != nil {
		return nil, nil, usagef("makefs: %v", err)
	}
	return flags, operands, nil
}

// Parse parses a makefs command line (without the program name) as FreeBSD
// makefs does, resolving relative paths against dir, and checks that -t
// names a registered type (a *UsageError listing the types when it does
// not) and that the sources exist. getenv is kept for Run as
// Command.Getenv: nil reads the process's environment, as
// fstree.OptionsFromEnv does. With "help" among
// the -o items only -t and -o are read: the result has Help set and needs
// no image-file or directory.
func Parse(args []string, dir string, getenv func(string) string) (*Command, error) {
	flags, rest, err := getoptFlags(args)
	if err != nil {
		return nil, err
	}
	c := &Command{Type: "ffs", Dir: dir, Getenv: getenv}
	if helpAsked(flags) {
		for _, f := range flags {
			if f.Name == 't' {
				c.Type = f.Arg
			}
		}
		c.Help = true
		if _, err := lookupType(c.Type); err != nil {
			return nil, err
		}
		return c, nil
	}
	for _, f := range flags {
		if err := c.setFlag(f); err != nil {
			return nil, err
		}
	}
	if _, err := lookupType(c.Type); err != nil {
		return nil, err
	}
	if len(rest) < 2 {
		return nil, usagef("makefs: missing image-file or directory")
	}
	if c.Exclude && c.Spec == "" {
		return nil, usagef("makefs: -x requires -F mtree-specfile")
	}
	c.Image = c.abs(rest[0])
	c.ImageArg = len(args) - len(rest)
	for i, src := range rest[1:] {
		if i == 0 && src == "-" {
			c.Manifest = "-"
			continue
		}
		path := c.abs(src)
		fi, err := os.Stat(path)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, fmt.Errorf("makefs: cannot stat %q: %v", src, err)
		}
		switch {
		case fi.IsDir():
			c.Dirs = append(c.Dirs, path)
		case i == 0 && fi.Mode().IsRegular():
			c.Manifest, c.ManifestArg = path, src
		case i == 0:
			return nil, fmt.Errorf("makefs: %q: not a file or directory", src)
		default:
			return nil, fmt.Errorf("makefs: %q: not a directory", src)
		}
	}
	return c, nil
}

// helpAsked reports whether "help" is among the -o items of flags.
func helpAsked(flags []flag) bool {
	for _, f := range flags {
		if f.Name != 'o' {
			continue
		}
		for item := range strings.SplitSeq(f.Arg, ",") {
			if item == "help" {
				return true
			}
		}
	}
	return false
}

// abs resolves path against the working directory c.Dir.
func (c *Command) abs(path string) string {
	if filepath.IsAbs(path) || c.Dir == "" {
		return filepath.Clean(path)
	}
	return filepath.Join(c.Dir, path)
}

// getenv returns the environment variable key: c.Getenv's, or the
// process's without it.
func (c *Command) getenv(key string) string {
	if c.Getenv == nil {
		return os.Getenv(key)
	}
	return c.Getenv(key)
}

// setFlag applies one command-line flag.
func (c *Command) setFlag(f flag) error {
	if f.Long != "" {
		return c.setLong(f.Long, f.Arg)
	}
	name, arg := f.Name, f.Arg
	bad := func(err error) error { return usagef("makefs: -%c %s: %v", name, arg, err) }
	size := func(min, max int64) (int64, error) {
		n, err := ParseSize(arg, min, max)
		if err != nil {
			return 0, bad(err)
		}
		return n, nil
	}
	var err error
	switch name {
	case 'B':
		return c.setByteOrder(arg, bad)
	case 'b', 'f':
		return c.setFree(name, arg, bad)
	case 'D':
		c.Dups++
	case 'd':
		if c.Debug, err = strconv.ParseInt(arg, 0, 64); err != nil {
			return bad(errors.New("invalid debug mask"))
		}
	case 'F':
		c.Spec = c.abs(arg)
	case 'M':
		c.MinSize, err = size(1, math.MaxInt64)
	case 'm':
		c.MaxSize, err = size(1, math.MaxInt64)
	case 'N':
		c.UserDB = c.abs(arg)
	case 'O':
		c.Offset, err = size(0, math.MaxInt64)
	case 'o':
		return c.addOpts(arg, bad)
	case 'p', 'Z':
		c.Sparse = true
	case 'R':
		c.Roundup, err = size(0, math.MaxInt64)
	case 's':
		c.Size, err = size(1, math.MaxInt64)
		c.MinSize, c.MaxSize = c.Size, c.Size
	case 'S':
		var n int64
		n, err = size(1, math.MaxInt32)
		c.SectorSize = int(n)
	case 't':
		c.Type = arg
	case 'T':
		t, file, terr := fstree.ParseTimestampSource(c.Dir, arg)
		if terr != nil {
			return bad(errors.New(trimPrefix(terr, fstree.ErrTimestamp.Error())))
		}
		c.Timestamp, c.TimestampArg, c.TimestampFromFile = t, arg, file
	case 'x':
		c.Exclude = true
	}
	return err
}

// setLong applies the long option --name=arg.
func (c *Command) setLong(name, arg string) error {
	switch name {
	case "metadata":
		m, err := ParseMetadata(arg)
		if err != nil {
			return usagef("makefs: --metadata=%s: %v", arg, err)
		}
		c.Metadata = m
	}
	return nil
}

// ErrMetadata is the error of ParseMetadata for a word it does not know.
var ErrMetadata = errors.New("want --metadata=git (only what git keeps: owners 0:0, modes from the execute bit) or --metadata=host (the host's owners, modes and hard links)")

// ParseMetadata reads the value of --metadata: "git" or "host".
func ParseMetadata(s string) (fstree.Metadata, error) {
	switch s {
	case "git":
		return fstree.MetadataGit, nil
	case "host":
		return fstree.MetadataHost, nil
	}
	return 0, ErrMetadata
}

// setByteOrder applies -B arg; bad says an error in the flag's words.
func (c *Command) setByteOrder(arg string, bad func(error) error) error {
	switch arg {
	case "be", "4321", "big":
		c.ByteOrder = binary.BigEndian
	case "le", "1234", "little":
		c.ByteOrder = binary.LittleEndian
	default:
		return bad(errors.New("invalid byte order (want be, 4321, big, le, 1234 or little)"))
	}
	return nil
}

// setFree applies -b or -f (name) arg: a number, or a percentage with a
// '%' suffix; bad says an error in the flag's words.
func (c *Command) setFree(name byte, arg string, bad func(error) error) error {
	pct := strings.HasSuffix(arg, "%")
	var n int64
	var err error
	if pct {
		if n, err = ParseSize(strings.TrimSuffix(arg, "%"), 0, 99); err != nil {
			if !errors.Is(err, ErrSizeSyntax) {
				err = errors.New("percentage must be between 0 and 99")
			}
			return bad(err)
		}
	} else if n, err = ParseSize(arg, 0, math.MaxInt64); err != nil {
		return bad(err)
	}
	switch {
	case name == 'b' && pct:
		c.FreeBlocksPct = int(n)
	case name == 'b':
		c.FreeBlocks = n
	case pct:
		c.FreeFilesPct = int(n)
	default:
		c.FreeFiles = n
	}
	return nil
}

// addOpts appends the comma-separated key[=value] items of an -o arg to
// c.Opts; bad says an error in the flag's words.
func (c *Command) addOpts(arg string, bad func(error) error) error {
	for item := range strings.SplitSeq(arg, ",") {
		if item == "" {
			return bad(errors.New("empty option"))
		}
		k, v, has := strings.Cut(item, "=")
		c.Opts = append(c.Opts, Option{Key: k, Value: v, HasValue: has})
	}
	return nil
}

// Errors of ParseSize.
var (
	ErrSizeSyntax = errors.New("invalid size: want a decimal number with an optional suffix b, k, m, g, t or w, or a product AxB")
	ErrSizeRange  = errors.New("size out of range")
)

// ParseSize reads a number of a makefs flag with fsopt.ParseNumber,
// makefs's one number syntax, and says what is wrong in the command's
// words: ErrSizeSyntax, ErrSizeRange when the number itself overflows, or
// the range [min, max] the flag allows.
func ParseSize(s string, min, max int64) (int64, error) {
	n, err := fsopt.ParseNumber(s, min, max)
	switch {
	case err == nil:
		return n, nil
	case errors.Is(err, fsopt.ErrNumber):
		return 0, ErrSizeSyntax
	}
	if _, perr := fsopt.ParseNumber(s, math.MinInt64, math.MaxInt64); perr != nil {
		return 0, ErrSizeRange
	}
	return 0, fmt.Errorf("must be between %d and %d", min, max)
}
