package cli

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/fixturegen/fixturegen/imgkit/ar"
	"github.com/fixturegen/fixturegen/imgkit/inspect"
)

func init() {
	register(command{
		Name:    "ar",
		Usage:   "ar [-]{dmpqrstx}[abcDfiNoOPsSTuUv] [--format=gnu|bsd] [--thin] [relpos] [count] archive [member ...]",
		Summary: "create, modify and extract from archives, as ar(1) does",
		Help: `Operations: d delete, m move, p print, q quick append, r insert or replace,
s write the index only (as ranlib), t list, x extract.
Modifiers: a/b/i relpos (position after/before relpos), c (do not say
"creating"), D (deterministic: dates, uids and gids 0, mode 644; the
default), U (real dates, ids and modes), s (write the index; the default),
S (no index), u (replace only older members), v (verbose), o (extract with
the stored dates), N count (the count-th member of that name), P (full
path names), f (truncate names to 15 bytes), O (list offsets), T (thin).
--format=bsd writes the BSD layout as llvm-ar --format=bsd does;
--compat=llvm matches llvm-ar's bytes where it differs from GNU ar.
Editing writes a new file beside the archive and renames it over the
archive only when complete.`,
		Run: runAr,
	})
	register(command{
		Name:    "ranlib",
		Usage:   "ranlib [-DU] archive ...",
		Summary: "write the symbol index of archives, as ranlib(1) does",
		Run:     runRanlib,
	})
}

// arCmd is one parsed ar command line.
type arCmd struct {
	e        *env
	op       byte
	relpos   string // a/b/i member name
	posAfter bool
	count    int // N
	counted  bool
	archive  string
	files    []string

	create, det, index, noIndex, newer, verbose, keepDates bool
	fullPath, truncate, offsets, thin                      bool
	format                                                 ar.Format
	formatSet                                              bool
	compat                                                 ar.Compat
	// sym64Err is the error for a bad FIXTUREGEN_AR_SYM64_THRESHOLD,
	// returned only when the archive is written.
	sym64Err error

	// arArchive and arFiles are the indexes in the command line of the
	// archive and of the files, for the catalogue's plan.
	arArchive int
	arFiles   []int

	// written counts the bytes Commit writes (EditOptions.Progress).
	written *atomic.Int64
	// ranlib is set when the ranlib command runs the command.
	ranlib bool
}

const arOps = "dmpqrstx"

func runAr(e *env, args []string) error {
	c, err := parseArArgs(e, args)
	if err != nil {
		return err
	}
	defer e.removeTempsOnSignal("ar")()
	return c.run()
}

// parseArArgs parses the ar command line; the command records which
// argument names the archive and which the files (arArchive, arFiles).
func parseArArgs(e *env, args []string) (*arCmd, error) {
	c := &arCmd{e: e, det: true, count: 1}
	key, rest, err := c.parseLongOptions(args)
	if err != nil {
		return nil, err
	}
	if key == "" {
		return nil, usagef("ar: missing operation")
	}
	if c.format == ar.FormatBSD {
		c.compat = ar.CompatLLVM
	}
	if err := c.parseKey(key); err != nil {
		return nil, err
	}
	if err := c.parseOperands(key, rest); err != nil {
		return nil, err
	}
	return c, nil
}

// arOperands are the arguments after the key, with their indexes in the
// command line.
type arOperands struct {
	vals []string
	idx  []int
}

// parseLongOptions reads the --thin, --format and --compat options
// wherever they are in args, and returns the key (the first other
// argument) and the operands after it.
func (c *arCmd) parseLongOptions(args []string) (key string, rest arOperands, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--thin":
			c.thin = true
		case strings.HasPrefix(a, "--format=") || a == "--format":
			v := strings.TrimPrefix(a, "--format=")
			if a == "--format" {
				if i+1 >= len(args) {
					return "", rest, usagef("ar: --format needs a value: gnu or bsd")
				}
				i++
				v = args[i]
			}
			if c.format, err = parseArFormat(v); err != nil {
				return "", rest, err
			}
			c.formatSet = true
		case strings.HasPrefix(a, "--compat="):
			if c.compat, err = parseArCompat(strings.TrimPrefix(a, "--compat=")); err != nil {
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

// parseArFormat returns the layout that --format=v names.
func parseArFormat(v string) (ar.Format, error) {
	switch v {
	case "gnu", "default":
		return ar.FormatGNU, nil
	case "bsd":
		return ar.FormatBSD, nil
	}
	return 0, usagef("ar: --format=%s: unknown format; use gnu or bsd", v)
}

// parseArCompat returns the compatibility target that --compat=v names.
func parseArCompat(v string) (ar.Compat, error) {
	switch v {
	case "gnu":
		return ar.CompatGNU, nil
	case "llvm":
		return ar.CompatLLVM, nil
	}
	return 0, usagef("ar: --compat=%s: unknown; use gnu or llvm", v)
}

// parseOperands takes, in order, the relpos member name (a, b or i with m
// or r), the count (N) and the archive from the operands of key; the
// files are the rest.
func (c *arCmd) parseOperands(key string, rest arOperands) error {
	need := func(what string) (string, error) {
		if len(rest.vals) == 0 {
			return "", usagef("ar: missing %s", what)
		}
		v := rest.vals[0]
		c.arArchive = rest.idx[0]
		rest.vals, rest.idx = rest.vals[1:], rest.idx[1:]
		return v, nil
	}
	var err error
	if c.relpos != "" || strings.ContainsAny(key, "abi") && strings.ContainsAny(key, "mr") {
		if c.relpos, err = need("relpos member name"); err != nil {
			return err
		}
	}
	if strings.ContainsRune(key, 'N') {
		v, err := need("count for N")
		if err != nil {
			return err
		}
		n, perr := strconv.Atoi(v)
		if perr != nil || n < 1 {
			return usagef("ar: N: bad count %q", v)
		}
		c.count = n
	}
	if c.archive, err = need("archive"); err != nil {
		return err
	}
	c.files, c.arFiles = rest.vals, rest.idx
	return nil
}

// parseKey reads the operation letter and modifiers, as GNU ar does.
func (c *arCmd) parseKey(key string) error {
	k := strings.TrimPrefix(key, "-")
	if k == "" {
		return usagef("ar: missing operation")
	}
	sawS := false
	for i := 0; i < len(k); i++ {
		ch := k[i]
		switch {
		case ch == 's':
			sawS = true
		case strings.IndexByte(arOps, ch) >= 0:
			if c.op != 0 && c.op != ch {
				return usagef("ar: two different operations given: %c and %c", c.op, ch)
			}
			c.op = ch
		default:
			if err := c.setModifier(ch, key); err != nil {
				return err
			}
		}
	}
	// s is an operation when alone, a modifier otherwise.
	if sawS {
		if c.op == 0 {
			c.op = 's'
		}
		c.index, c.noIndex = true, false
	}
	if c.op == 0 {
		return usagef("ar: no operation in %q: use one of d, m, p, q, r, s, t, x", key)
	}
	if c.relpos != "" {
		c.relpos = "?" // the name is the next argument
		if c.op != 'm' && c.op != 'r' {
			c.relpos = ""
		}
	}
	return nil
}

// setModifier applies the modifier letter ch of key.
func (c *arCmd) setModifier(ch byte, key string) error {
	switch ch {
	case 'a':
		c.posAfter, c.relpos = true, "?"
	case 'b', 'i':
		c.posAfter, c.relpos = false, "?"
	case 'c':
		c.create = true
	case 'D':
		c.det = true
	case 'U':
		c.det = false
	case 'S':
		c.noIndex, c.index = true, false
	case 'u':
		c.newer = true
	case 'v':
		c.verbose = true
	case 'o':
		c.keepDates = true
	case 'N':
		c.counted = true
	case 'P':
		c.fullPath = true
	case 'f':
		c.truncate = true
	case 'O':
		c.offsets = true
	case 'T':
		c.thin = true
	case 'l', 'V', 'M':
		return usagef("ar: modifier %c is not supported", ch)
	default:
		return usagef("ar: unknown operation or modifier %q in %q", ch, key)
	}
	return nil
}

// editOptions are the library's options for the command line.
func (c *arCmd) editOptions() *ar.EditOptions {
	o := &ar.EditOptions{
		Options:      ar.Options{Format: c.format, Compat: c.compat, Thin: c.thin, NoIndex: c.noIndex},
		Dir:          c.e.Dir,
		RelPos:       c.relpos,
		After:        c.posAfter,
		FullPath:     c.fullPath,
		Truncate:     c.truncate,
		Update:       c.newer,
		FileMetadata: !c.det,
		KeepDates:    c.keepDates,
		KeepFormat:   !c.formatSet,
	}
	switch c.op {
	case 'd':
		o.Count = c.count
	case 't', 'p', 'x':
		if c.counted {
			o.Count = c.count
		}
	}
	if c.verbose {
		o.Verbose = c.e.Stdout
	}
	if c.written == nil {
		c.written = c.e.progressCounter()
	}
	o.Progress = c.written
	if v := c.e.getenv("FIXTUREGEN_AR_SYM64_THRESHOLD"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			c.sym64Err = fmt.Errorf("ar: FIXTUREGEN_AR_SYM64_THRESHOLD=%s: not a positive number", v)
		} else {
			o.Sym64Threshold = n
		}
	}
	return o
}

func (c *arCmd) run() error {
	a, err := ar.OpenArchive(c.archive, c.editOptions())
	if err != nil {
		return err
	}
	defer a.Close()
	if !a.Exists() {
		switch c.op {
		case 'r', 'q':
			if !c.create {
				fmt.Fprintf(c.e.Stderr, "ar: creating %s\n", c.archive)
			}
		default:
			return fmt.Errorf("ar: %s: no such file or directory", c.archive)
		}
	}
	switch c.op {
	case 't':
		return c.list(a)
	case 'p':
		return c.print(a)
	case 'x':
		return a.Extract(c.files...)
	case 'd':
		a.Delete(c.files...)
	case 'm':
		if err := a.Move(c.files...); err != nil {
			return err
		}
	case 'r':
		if err := a.Replace(c.files...); err != nil {
			return err
		}
	case 'q':
		if err := a.Append(c.files...); err != nil {
			return err
		}
	case 's':
	}
	return c.commit(a)
}

// selected calls fn for the members the command line names (all when none
// is named), and reports the names not found.
func (c *arCmd) selected(a *ar.Archive, fn func(i int, m *ar.Member) error) error {
	sel, selErr := a.Select(c.files...)
	ms := a.Reader().Members()
	for _, i := range sel {
		if err := fn(i, &ms[i]); err != nil {
			return err
		}
	}
	return selErr
}

func (c *arCmd) list(a *ar.Archive) error {
	return c.selected(a, func(i int, m *ar.Member) error {
		line := m.Name
		if c.verbose {
			line = fmt.Sprintf("%s %d/%d %6d %s %s", inspect.PermString(uint32(m.Mode)), m.Uid, m.Gid, m.Size,
				m.ModTime.UTC().Format("Jan _2 15:04 2006"), m.Name)
		}
		if c.offsets && m.DataOffset >= 0 {
			line += fmt.Sprintf(" 0x%x", m.DataOffset)
		}
		_, err := fmt.Fprintln(c.e.Stdout, line)
		return err
	})
}

func (c *arCmd) print(a *ar.Archive) error {
	return c.selected(a, func(i int, m *ar.Member) error {
		if c.verbose {
			fmt.Fprintf(c.e.Stdout, "\n<%s>\n\n", m.Name)
		}
		// A thin member's data is its file beside the archive, which
		// may be missing or stale (ar.ErrThinMember).
		sr, err := a.Reader().Section(i)
		if err != nil {
			return &archiveError{archive: c.archive, err: err}
		}
		_, err = io.Copy(c.e.Stdout, sr)
		return err
	})
}

// archiveError is an error of the ar package about the archive the command
// line names, worded "ar: ARCHIVE: what", without the package's own "ar: ".
type archiveError struct {
	archive string
	err     error
}

func (e *archiveError) Error() string {
	return "ar: " + e.archive + ": " + strings.TrimPrefix(e.err.Error(), "ar: ")
}

func (e *archiveError) Unwrap() error { return e.err }

// commit writes the edited archive, with the index threshold the
// environment may set, in the command's words.
func (c *arCmd) commit(a *ar.Archive) error {
	if c.sym64Err != nil {
		return c.sym64Err
	}
	prog := "ar"
	if c.ranlib {
		prog = "ranlib"
	}
	err := c.e.showProgress(prog, c.archive, c.written, func(io.Writer, io.Writer) error { return a.Commit() })
	if errors.Is(err, ar.ErrThinBSD) {
		return fmt.Errorf("ar: %s: only the gnu format has a thin mode (T, --thin with --format=bsd)", c.archive)
	}
	return err
}

// runRanlib writes the index of each archive, as "ar s" does.
func runRanlib(e *env, args []string) error {
	det := true
	var files []string
	for _, a := range args {
		switch {
		case a == "-D":
			det = true
		case a == "-U":
			det = false
		case a == "-t":
		case strings.HasPrefix(a, "-") && a != "-":
			return usagef("ranlib: unknown option %s", a)
		default:
			files = append(files, a)
		}
	}
	if len(files) == 0 {
		return usagef("ranlib: missing archive")
	}
	for _, f := range files {
		c := &arCmd{e: e, op: 's', det: det, count: 1, archive: f, create: true, ranlib: true}
		a, err := ar.OpenArchive(f, c.editOptions())
		if err != nil {
			return rewrap(err)
		}
		if !a.Exists() {
			return fmt.Errorf("ranlib: %s: no such file or directory", f)
		}
		err = c.commit(a)
		a.Close()
		if err != nil {
			return rewrap(err)
		}
	}
	return nil
}

// rewrap turns an "ar: ..." error into a "ranlib: ..." one.
func rewrap(err error) error {
	return errors.New("ranlib: " + strings.TrimPrefix(err.Error(), "ar: "))
}
