// Package arcmd runs the command lines of ar(1) and ranlib(1) in-process,
// as GNU binutils ar reads them:
//
//	ar [-]{dmpqrstx}[abcDfiNoOPsSTuUv] [--format=gnu|bsd] [--thin] [--compat=gnu|llvm]
//	   [relpos] [count] archive [member ...]
//	ranlib [-DtU] archive ...
//
// Parse reads an ar command line into a Command (the operation, its
// modifiers, the archive and the member files, with the index of each in
// the command line) and ParseRanlib a ranlib command line into one Command
// per archive; (*Command).Run edits, lists, prints or extracts with the
// imgkit/ar library, and prints what ar prints. The fixturegen command and
// the catalogue's input planner both read a line with Parse, so that they
// agree on which argument is the archive and which files it reads.
//
// It is a package of its own beside imgkit/ar, as imgkit/makefs sits
// beside the formats it runs: imgkit/ar is the format (reader, writer,
// editor) for Go code that has no command line, and the listing of "ar tv"
// takes its mode string from imgkit/inspect, which imports imgkit/ar.
//
// Errors of Parse and Run are said in the command's words, prefixed with
// "ar: " (or "ranlib: " for a Command of ParseRanlib); errors a command
// line's syntax causes are *UsageError values.
package arcmd

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/ar"
	"github.com/fixturegen/fixturegen/imgkit/progress"
)

// Command is a parsed ar command line, or one archive of a ranlib command
// line.
type Command struct {
	// Op is the operation letter: 'd' delete, 'm' move, 'p' print, 'q'
	// quick append, 'r' insert or replace, 's' write the index only (as
	// ranlib), 't' list, 'x' extract.
	Op byte

	// RelPos is the relpos member name that a, b or i take with m or r;
	// "" without one. After is set by a (after RelPos), cleared by b and
	// i (before it).
	RelPos string
	After  bool

	// Count is the count of N (the Count-th member of a name); 1 without
	// N. Counted is set by N.
	Count   int
	Counted bool

	Create       bool // c: do not say "creating" when r or q creates the archive
	FileMetadata bool // U: store the files' dates, ids and modes; D (the default) clears it
	Index        bool // s: write the index (the default); it clears NoIndex
	NoIndex      bool // S: write no index
	Update       bool // u: replace only members older than their files
	Verbose      bool // v: say what each member undergoes; list in the long form with t
	KeepDates    bool // o: extract with the members' dates
	FullPath     bool // P: store and match members by the path given
	Truncate     bool // f: cut names to 15 bytes
	Offsets      bool // O: list each member's data offset with t
	Thin         bool // T or --thin: a thin archive

	// Format is the layout --format names (FormatGNU without it);
	// FormatSet reports whether --format was given, since an archive
	// is otherwise written back in its own layout with CompatLLVM.
	Format    ar.Format
	FormatSet bool
	// Compat is --compat's target; --format=bsd makes it CompatLLVM.
	Compat ar.Compat

	// Archive is the archive operand as given, and ArchiveArg its index
	// in the command line Parse read.
	Archive    string
	ArchiveArg int
	// Members are the member operands (files for r and q, member names
	// otherwise) as given, and MemberArgs their indexes.
	Members    []string
	MemberArgs []int

	// Program is the command that messages name: "ar", or "ranlib" for a
	// Command of ParseRanlib.
	Program string
	// Dir is the working directory relative paths are resolved against;
	// "" is the process's.
	Dir string
	// Getenv reads the environment (FIXTUREGEN_AR_SYM64_THRESHOLD, the
	// member offset from which the index uses 64-bit fields); nil reads
	// the process's.
	Getenv func(string) string
	// Progress, when not nil, is told how far Run's write of the new
	// archive is (ar.EditOptions.Progress), so that a caller can show how
	// far a long write is from another goroutine.
	Progress *progress.Meter
}

// UsageError is an error in a command line's syntax: an unknown option,
// operation or modifier, a missing operand, a bad count.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// Operations are the operation letters of an ar key.
const Operations = "dmpqrstx"

// Modifiers are the modifier letters of an ar key that Parse accepts,
// besides s, which is the operation "write the index" alone and the
// modifier "write the index too" after another operation.
const Modifiers = "abcDfiNoOPSTuUv"

// LongOptions are the options Parse reads anywhere on the command line,
// each written --name or --name=value: --format, --compat and --thin.
var LongOptions = []string{"format", "compat", "thin"}

// Parse parses an ar command line (without the program name) as GNU ar
// does: the long options anywhere, then the key (operation and modifiers,
// with or without a leading '-'), then relpos (a, b or i with m or r),
// count (N), the archive and the members. dir and getenv are kept as
// Command.Dir and Command.Getenv. Errors are *UsageError values.
func Parse(args []string, dir string, getenv func(string) string) (*Command, error) {
	c := &Command{Program: "ar", Count: 1, Dir: dir, Getenv: getenv}
	key, rest, err := c.parseLongOptions(args)
	if err != nil {
		return nil, err
	}
	if key == "" {
		return nil, usagef("ar: missing operation")
	}
	if c.Format == ar.FormatBSD {
		c.Compat = ar.CompatLLVM
	}
	wantRelPos, err := c.parseKey(key)
	if err != nil {
		return nil, err
	}
	if err := c.parseOperands(wantRelPos, rest); err != nil {
		return nil, err
	}
	return c, nil
}

// ParseRanlib parses a ranlib command line (without the program name):
// -D (the default) and -U as ar's modifiers, -t accepted and ignored, then
// the archives. It returns one Command per archive, each "ar s" with c
// and Program "ranlib". Errors are *UsageError values.
func ParseRanlib(args []string, dir string, getenv func(string) string) ([]*Command, error) {
	fileMetadata := false
	var archives []int
	for i, a := range args {
		switch {
		case a == "-D":
			fileMetadata = false
		case a == "-U":
			fileMetadata = true
		case a == "-t":
		case strings.HasPrefix(a, "-") && a != "-":
			return nil, usagef("ranlib: unknown option %s", a)
		default:
			archives = append(archives, i)
		}
	}
	if len(archives) == 0 {
		return nil, usagef("ranlib: missing archive")
	}
	cmds := make([]*Command, len(archives))
	for j, i := range archives {
		cmds[j] = &Command{Program: "ranlib", Op: 's', Index: true, Create: true, Count: 1, FileMetadata: fileMetadata,
			Archive: args[i], ArchiveArg: i, Dir: dir, Getenv: getenv}
	}
	return cmds, nil
}

// Writes reports whether the operation writes the archive (d, m, q, r, s)
// rather than only reading it (p, t, x).
func (c *Command) Writes() bool { return strings.IndexByte("dmqrs", c.Op) >= 0 }

// Inputs returns the files the command reads into the archive, resolved
// against Dir: the members of r and q, whose data a full archive holds
// and whose sizes a thin one records; none for other operations.
func (c *Command) Inputs() []string {
	if c.Op != 'r' && c.Op != 'q' {
		return nil
	}
	in := make([]string, len(c.Members))
	for i, f := range c.Members {
		in[i] = c.abs(f)
	}
	return in
}

// abs resolves path against the working directory c.Dir.
func (c *Command) abs(path string) string {
	if filepath.IsAbs(path) || c.Dir == "" {
		return filepath.Clean(path)
	}
	return filepath.Join(c.Dir, path)
}

// operands are the arguments after the key, with their indexes in the
// command line.
type operands struct {
	vals []string
	idx  []int
}

// parseLongOptions reads the --thin, --format and --compat options
// wherever they are in args, and returns the key (the first other
// argument) and the operands after it.
func (c *Command) parseLongOptions(args []string) (key string, rest operands, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--thin":
			c.Thin = true
		case strings.HasPrefix(a, "--format=") || a == "--format":
			v := strings.TrimPrefix(a, "--format=")
			if a == "--format" {
				if i+1 >= len(args) {
					return "", rest, usagef("ar: --format needs a value: gnu or bsd")
				}
				i++
				v = args[i]
			}
			if c.Format, err = parseFormat(v); err != nil {
				return "", rest, err
			}
			c.FormatSet = true
		case strings.HasPrefix(a, "--compat="):
			if c.Compat, err = parseCompat(strings.TrimPrefix(a, "--compat=")); err != nil {
				return "", rest, err
			}
		case strings.HasPrefix(a, "--"):
			return "", rest, usagef("ar: unknown option %s", a)
		case key == "":
			key = a
		default:
			rest.vals = append(rest.vals, a)
			rest.idx = append(rest.idx, i)
		}
	}
	return key, rest, nil
}

// parseFormat returns the layout that --format=v names.
func parseFormat(v string) (ar.Format, error) {
	switch v {
	case "gnu", "default":
		return ar.FormatGNU, nil
	case "bsd":
		return ar.FormatBSD, nil
	}
	return 0, usagef("ar: --format=%s: unknown format; use gnu or bsd", v)
}

// parseCompat returns the compatibility target that --compat=v names.
func parseCompat(v string) (ar.Compat, error) {
	switch v {
	case "gnu":
		return ar.CompatGNU, nil
	case "llvm":
		return ar.CompatLLVM, nil
	}
	return 0, usagef("ar: --compat=%s: unknown; use gnu or llvm", v)
}

// parseOperands takes, in order, the relpos member name (when wantRelPos),
// the count (N) and the archive from the operands; the members are the
// rest.
func (c *Command) parseOperands(wantRelPos bool, rest operands) error {
	need := func(what string) (string, error) {
		if len(rest.vals) == 0 {
			return "", usagef("ar: missing %s", what)
		}
		v := rest.vals[0]
		c.ArchiveArg = rest.idx[0]
		rest.vals, rest.idx = rest.vals[1:], rest.idx[1:]
		return v, nil
	}
	var err error
	if wantRelPos {
		if c.RelPos, err = need("relpos member name"); err != nil {
			return err
		}
	}
	if c.Counted {
		v, err := need("count for N")
		if err != nil {
			return err
		}
		n, perr := strconv.Atoi(v)
		if perr != nil || n < 1 {
			return usagef("ar: N: bad count %q", v)
		}
		c.Count = n
	}
	if c.Archive, err = need("archive"); err != nil {
		return err
	}
	c.Members, c.MemberArgs = rest.vals, rest.idx
	return nil
}

// parseKey reads the operation letter and modifiers, as GNU ar does, and
// reports whether a relpos operand follows (a, b or i with m or r).
func (c *Command) parseKey(key string) (wantRelPos bool, err error) {
	k := strings.TrimPrefix(key, "-")
	if k == "" {
		return false, usagef("ar: missing operation")
	}
	sawS, sawPos := false, false
	for i := 0; i < len(k); i++ {
		ch := k[i]
		switch {
		case ch == 's':
			sawS = true
		case strings.IndexByte(Operations, ch) >= 0:
			if c.Op != 0 && c.Op != ch {
				return false, usagef("ar: two different operations given: %c and %c", c.Op, ch)
			}
			c.Op = ch
		case ch == 'a' || ch == 'b' || ch == 'i':
			sawPos, c.After = true, ch == 'a'
		default:
			if err := c.setModifier(ch, key); err != nil {
				return false, err
			}
		}
	}
	// s is an operation when alone, a modifier otherwise.
	if sawS {
		if c.Op == 0 {
			c.Op = 's'
		}
		c.Index, c.NoIndex = true, false
	}
	if c.Op == 0 {
		return false, usagef("ar: no operation in %q: use one of d, m, p, q, r, s, t, x", key)
	}
	return sawPos && (c.Op == 'm' || c.Op == 'r'), nil
}

// setModifier applies the modifier letter ch of key, other than s and the
// relpos letters a, b and i.
func (c *Command) setModifier(ch byte, key string) error {
	switch ch {
	case 'c':
		c.Create = true
	case 'D':
		c.FileMetadata = false
	case 'U':
		c.FileMetadata = true
	case 'S':
		c.NoIndex, c.Index = true, false
	case 'u':
		c.Update = true
	case 'v':
		c.Verbose = true
	case 'o':
		c.KeepDates = true
	case 'N':
		c.Counted = true
	case 'P':
		c.FullPath = true
	case 'f':
		c.Truncate = true
	case 'O':
		c.Offsets = true
	case 'T':
		c.Thin = true
	case 'l', 'V', 'M':
		return usagef("ar: modifier %c is not supported", ch)
	default:
		return usagef("ar: unknown operation or modifier %q in %q", ch, key)
	}
	return nil
}
