package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
)

// The makefs command accepts the command line of FreeBSD makefs(8):
//
//	makefs [-DxZ] [-B endian] [-b free-blocks] [-d debug-mask] [-F mtree-specfile]
//	       [-f free-files] [-M minimum-size] [-m maximum-size] [-N userdb-dir]
//	       [-O offset] [-o fs-options] [-R roundup-size] [-S sector-size]
//	       [-s image-size] [-T timestamp] [-t fs-type]
//	       image-file directory|manifest [extra-directory ...]
//
// makefs.go parses it into a makefsArgs; each file system type registers a
// makefsType (makefs_msdos.go, makefs_ffs.go) that builds the image.

func init() {
	register(command{
		Name:    "makefs",
		Usage:   "makefs [-DxZ] [-B endian] [-b free-blocks] [-d debug-mask] [-F mtree-specfile] [-f free-files] [-M minimum-size] [-m maximum-size] [-N userdb-dir] [-O offset] [-o fs-options] [-R roundup-size] [-S sector-size] [-s image-size] [-T timestamp] [-t fs-type] image-file directory|manifest [extra-directory ...]",
		Summary: "create a file system image from a directory tree, as makefs(8) does",
		Help:    makefsHelp,
		Run:     runMakefs,
	})
}

const makefsHelp = `Options are those of FreeBSD makefs(8); -o takes the options of the
file system type, comma-separated, as key or key=value.

Sizes (-s -m -M -O -R -S -b -f) are decimal numbers of bytes with an
optional suffix: b (512), k (1024), m (1024^2), g (1024^3), t (1024^4)
or w (4, the size of an int); "AxB" is the product of A and B. A '%'
at the end of -b or -f asks for a percentage of the image size.

-T takes a file, whose modification time is used, or else a number of
seconds since the Epoch; without -T, SOURCE_DATE_EPOCH clamps times.

-t chooses the file system type (default ffs). "-o help", anywhere among
the -o options, prints the options of that type and exits; it needs no
image-file or directory.
`

// makefsArgs is the parsed common makefs command line.
type makefsArgs struct {
	Env  *env
	Type string     // -t, default "ffs"
	Opts []fsOption // -o, repeatable, comma-separated key[=value] in command-line order

	Size, MinSize, MaxSize, Offset, Roundup int64 // -s (sets min and max), -m, -M, -O, -R; 0 = unset
	FreeBlocks, FreeFiles                   int64 // -b, -f
	FreeBlocksPct, FreeFilesPct             int   // -b, -f with a '%' suffix

	SectorSize int        // -S; 0 = unset
	Timestamp  *time.Time // -T: a file's modification time, or seconds since the Epoch
	Spec       string     // -F, absolute
	Exclude    bool       // -x
	Sparse     bool       // -Z (or the older -p)
	ByteOrder  string     // -B, normalised to "be" or "le"; "" = unset
	Dups       int        // -D, counted: duplicate paths in a manifest are a warning (1) or ignored (2 or more)
	Debug      int64      // -d debug mask (accepted, unused)
	UserDB     string     // -N, absolute

	Image    string   // image-file, absolute
	Manifest string   // the second argument when it is an mtree manifest (absolute, or "-" for standard input)
	Dirs     []string // source directories, absolute: the second argument when it is one, then every extra-directory
}

// fsOption is one key[=value] item of -o.
type fsOption struct {
	Key, Value string
	HasValue   bool
}

// makefsType is a file system type that makefs -t can build.
type makefsType struct {
	Name string
	Run  func(a *makefsArgs) error
	// Help lists the type's -o options, for "fixturegen help makefs" and
	// "-o help"; nil when the type has none to describe.
	Help func() []imgfmt.Option
}

var makefsTypes = map[string]makefsType{}

// registerMakefsType adds a file system type; it is called from init
// functions, and registering a name twice panics at start-up.
func registerMakefsType(t makefsType) {
	if _, dup := makefsTypes[t.Name]; dup {
		panic("fixturegen: makefs type " + t.Name + " registered twice")
	}
	makefsTypes[t.Name] = t
}

// makefsTypesHelp lists the registered file system types, each with its
// -o options, for "fixturegen help makefs".
func makefsTypesHelp() string {
	names := make([]string, 0, len(makefsTypes))
	for n := range makefsTypes {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "File system types: none yet.\n"
	}
	var b strings.Builder
	b.WriteString("File system types: " + strings.Join(names, ", ") + ".\n\n")
	b.WriteString(optionHelpIntro)
	for _, n := range names {
		b.WriteString("\n")
		writeOptionHelp(&b, makefsTypes[n])
	}
	return b.String()
}

// optionHelpIntro says how to read the lists writeOptionHelp writes.
const optionHelpIntro = "Options for -o, one per line: key, one-letter alias (- for none),\n" +
	"default, and what the option sets.\n"

// writeOptionHelp writes the -o options of t as aligned columns under a
// line naming the type, or says that t describes none.
func writeOptionHelp(w io.Writer, t makefsType) {
	fmt.Fprintf(w, "-t %s:\n", t.Name)
	var opts []imgfmt.Option
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

// makefsOptionHelp reports whether the makefs command line args asks for
// its type's options with "help" among the -o items, and if so prints them
// to standard output. It looks only at -t and -o, so that no image-file or
// directory is needed; a command line that getopt rejects is left for
// parseMakefsArgs to report.
func makefsOptionHelp(e *env, args []string) (bool, error) {
	opts, _, err := getopt("makefs", args, makefsOptString)
	if err != nil {
		return false, nil
	}
	typ, asked := "ffs", false
	for _, o := range opts {
		switch o.Name {
		case 't':
			typ = o.Arg
		case 'o':
			for item := range strings.SplitSeq(o.Arg, ",") {
				asked = asked || item == "help"
			}
		}
	}
	if !asked {
		return false, nil
	}
	t, ok := makefsTypes[typ]
	if !ok {
		return true, fmt.Errorf("makefs: file system type %q is not supported", typ)
	}
	var b strings.Builder
	b.WriteString(optionHelpIntro + "\n")
	writeOptionHelp(&b, t)
	_, err = io.WriteString(e.Stdout, b.String())
	return true, err
}

func runMakefs(e *env, args []string) error {
	if asked, err := makefsOptionHelp(e, args); asked {
		return err
	}
	a, err := parseMakefsArgs(e, args)
	if err != nil {
		return err
	}
	t, ok := makefsTypes[a.Type]
	if !ok {
		return fmt.Errorf("makefs: file system type %q is not supported", a.Type)
	}
	return reword(t.Run(a), t.Help)
}

// globalFlags names the makefs flag that sets a field of a format's
// Options, for the fields that the flags common to every type set.
var globalFlags = map[string]string{
	"Size": "-s", "MaxSize": "-m", "MinSize": "-M", "Offset": "-O", "SectorSize": "-S", "Timestamp": "-T",
	"FreeBlocks": "-b", "FreeBlocksPct": "-b", "FreeFiles": "-f", "FreeFilesPct": "-f", "Roundup": "-R",
	"ByteOrder": "-B",
}

// fieldWords matches what a library error says of an Options field:
// "Options.SectorsPerCluster", or with a value "Options.SectorsPerCluster = 4".
var fieldWords = regexp.MustCompile(`\bOptions\.([A-Z][A-Za-z0-9]*)(?: = ([^\s,;()]+))?`)

// reword says err in the command's words: every Options field it names
// becomes the flag that sets it (globalFlags: "-s", "-s 1m") or the -o
// option (the type's help: "sectors_per_cluster", "-o sectors_per_cluster=4"
// with a value); fields neither names are left as they are. The result
// wraps err, so errors.Is and errors.As see what they saw before.
func reword(err error, help func() []imgfmt.Option) error {
	if err == nil || !fieldWords.MatchString(err.Error()) {
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
	msg := fieldWords.ReplaceAllStringFunc(err.Error(), func(m string) string {
		sub := fieldWords.FindStringSubmatch(m)
		field, value := sub[1], sub[2]
		if flag, ok := globalFlags[field]; ok {
			if value != "" {
				return flag + " " + value
			}
			return flag
		}
		if key, ok := keys[field]; ok {
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

// makefsOptString is the getopt(3) option string of makefs.
const makefsOptString = "B:b:Dd:f:F:M:m:N:O:o:pR:s:S:t:T:xZ"

// parseMakefsArgs parses the makefs command line as FreeBSD makefs does,
// and checks that the sources exist. Errors in options are usage errors
// that name the option.
func parseMakefsArgs(e *env, args []string) (*makefsArgs, error) {
	opts, rest, err := getopt("makefs", args, makefsOptString)
	if err != nil {
		return nil, err
	}
	a := &makefsArgs{Env: e, Type: "ffs"}
	for _, o := range opts {
		if err := a.setOption(o.Name, o.Arg); err != nil {
			return nil, err
		}
	}
	if len(rest) < 2 {
		return nil, usagef("makefs: missing image-file or directory")
	}
	if a.Exclude && a.Spec == "" {
		return nil, usagef("makefs: -x requires -F mtree-specfile")
	}
	a.Image = e.abs(rest[0])
	for i, src := range rest[1:] {
		if i == 0 && src == "-" {
			a.Manifest = "-"
			continue
		}
		path := e.abs(src)
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
			a.Dirs = append(a.Dirs, path)
		case i == 0 && fi.Mode().IsRegular():
			a.Manifest = path
		case i == 0:
			return nil, fmt.Errorf("makefs: %q: not a file or directory", src)
		default:
			return nil, fmt.Errorf("makefs: %q: not a directory", src)
		}
	}
	return a, nil
}

// setOption applies one command-line option.
func (a *makefsArgs) setOption(name byte, arg string) error {
	e := a.Env
	bad := func(err error) error { return usagef("makefs: -%c %s: %v", name, arg, err) }
	size := func(min, max int64) (int64, error) {
		n, err := parseSize(arg, min, max)
		if err != nil {
			return 0, bad(err)
		}
		return n, nil
	}
	var err error
	switch name {
	case 'B':
		switch arg {
		case "be", "4321", "big":
			a.ByteOrder = "be"
		case "le", "1234", "little":
			a.ByteOrder = "le"
		default:
			return bad(errors.New("invalid byte order (want be, 4321, big, le, 1234 or little)"))
		}
	case 'b', 'f':
		var n int64
		pct := strings.HasSuffix(arg, "%")
		if pct {
			if n, err = parseSize(strings.TrimSuffix(arg, "%"), 0, 99); err != nil {
				if !errors.Is(err, errSizeSyntax) {
					err = errors.New("percentage must be between 0 and 99")
				}
				return bad(err)
			}
		} else if n, err = size(0, math.MaxInt64); err != nil {
			return err
		}
		switch {
		case name == 'b' && pct:
			a.FreeBlocksPct = int(n)
		case name == 'b':
			a.FreeBlocks = n
		case pct:
			a.FreeFilesPct = int(n)
		default:
			a.FreeFiles = n
		}
	case 'D':
		a.Dups++
	case 'd':
		if a.Debug, err = strconv.ParseInt(arg, 0, 64); err != nil {
			return bad(errors.New("invalid debug mask"))
		}
	case 'F':
		a.Spec = e.abs(arg)
	case 'M':
		a.MinSize, err = size(1, math.MaxInt64)
	case 'm':
		a.MaxSize, err = size(1, math.MaxInt64)
	case 'N':
		a.UserDB = e.abs(arg)
	case 'O':
		a.Offset, err = size(0, math.MaxInt64)
	case 'o':
		for item := range strings.SplitSeq(arg, ",") {
			if item == "" {
				return bad(errors.New("empty option"))
			}
			k, v, has := strings.Cut(item, "=")
			a.Opts = append(a.Opts, fsOption{Key: k, Value: v, HasValue: has})
		}
	case 'p', 'Z':
		a.Sparse = true
	case 'R':
		a.Roundup, err = size(0, math.MaxInt64)
	case 's':
		a.Size, err = size(1, math.MaxInt64)
		a.MinSize, a.MaxSize = a.Size, a.Size
	case 'S':
		var n int64
		n, err = size(1, math.MaxInt32)
		a.SectorSize = int(n)
	case 't':
		a.Type = arg
	case 'T':
		t, terr := fstree.ParseTimestamp(e.Dir, arg)
		if terr != nil {
			return bad(terr)
		}
		a.Timestamp = &t
	case 'x':
		a.Exclude = true
	}
	return err
}

// Errors of parseSize.
var (
	errSizeSyntax = errors.New("invalid size: want a decimal number with an optional suffix b, k, m, g, t or w, or a product AxB")
	errSizeRange  = errors.New("size out of range")
)

// parseSize reads a number of a makefs option with imgfmt.ParseNumber,
// makefs's one number syntax, and says what is wrong in the command's
// words: the syntax it wants, or the range the option allows.
func parseSize(s string, min, max int64) (int64, error) {
	n, err := imgfmt.ParseNumber(s, min, max)
	switch {
	case err == nil:
		return n, nil
	case errors.Is(err, imgfmt.ErrNumber):
		return 0, errSizeSyntax
	}
	// Out of range: say the range, unless the number itself overflows.
	if _, perr := imgfmt.ParseNumber(s, math.MinInt64, math.MaxInt64); perr != nil {
		return 0, errSizeRange
	}
	return 0, fmt.Errorf("must be between %d and %d", min, max)
}

// treeOptions returns the time rule of the command line: -T, or else
// SOURCE_DATE_EPOCH from the command's environment.
func (a *makefsArgs) treeOptions() (*fstree.Options, error) {
	opts, err := fstree.OptionsFromEnv(a.Env.getenv)
	if err != nil {
		return nil, fmt.Errorf("makefs: %w", err)
	}
	if a.Timestamp != nil {
		opts.Timestamp, opts.ClampTimes = *a.Timestamp, false
	}
	return opts, nil
}

// tree builds the source tree as makefs does: the manifest or the first
// directory, with every extra directory merged into it (directories merge;
// any other name present in two sources is an error), then the -F spec
// applied (with -x, what it does not name is left out). Times follow -T or
// SOURCE_DATE_EPOCH.
func (a *makefsArgs) tree() (*fstree.Tree, error) {
	opts, err := a.treeOptions()
	if err != nil {
		return nil, err
	}
	var t *fstree.Tree
	if a.Manifest != "" {
		spec, err := a.readSpec(a.Manifest)
		if err != nil {
			return nil, err
		}
		if t, err = fstree.ApplySpec(nil, spec, false, opts); err != nil {
			return nil, fmt.Errorf("makefs: %v", err)
		}
	}
	for _, dir := range a.Dirs {
		d, err := fstree.WalkDir(dir, opts)
		if err != nil {
			return nil, fmt.Errorf("makefs: %v", err)
		}
		if t == nil {
			t = d
			continue
		}
		if err := mergeTree(t.Root, d.Root, dir); err != nil {
			return nil, err
		}
	}
	if a.Spec != "" {
		spec, err := a.readSpec(a.Spec)
		if err != nil {
			return nil, err
		}
		if t, err = fstree.ApplySpec(t, spec, a.Exclude, opts); err != nil {
			return nil, fmt.Errorf("makefs: %v", err)
		}
	}
	return t, nil
}

// readSpec reads an mtree spec file, or standard input for "-".
func (a *makefsArgs) readSpec(name string) (*fstree.Spec, error) {
	var r io.Reader = a.Env.Stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("makefs: %v", err)
		}
		defer f.Close()
		r = f
	} else if r == nil {
		r = strings.NewReader("")
	}
	dups := fstree.DuplicatesError
	switch {
	case a.Dups == 1:
		dups = fstree.DuplicatesWarn
	case a.Dups > 1:
		dups = fstree.DuplicatesIgnore
	}
	spec, err := fstree.ReadSpecOptions(r, name, &fstree.SpecOptions{Duplicates: dups, Warn: a.Env.Stderr})
	if err != nil {
		return nil, fmt.Errorf("makefs: %v", err)
	}
	spec.Dir = a.Env.Dir
	return spec, nil
}

// mergeTree moves the children of the directory src (from the source
// directory srcDir) into the directory dst, as makefs merges an
// extra-directory: directories present in both merge recursively, keeping
// dst's metadata; any other name present in both is an error.
func mergeTree(dst, src *fstree.Node, srcDir string) error {
	added := false
	for _, c := range src.Children {
		var old *fstree.Node
		for _, d := range dst.Children {
			if d.Name == c.Name {
				old = d
				break
			}
		}
		switch {
		case old == nil:
			c.Parent = dst
			dst.Children = append(dst.Children, c)
			if c.Type == fstree.TypeDir {
				dst.Nlink++
			}
			added = true
		case old.Type == fstree.TypeDir && c.Type == fstree.TypeDir:
			if err := mergeTree(old, c, srcDir); err != nil {
				return err
			}
		default:
			return fmt.Errorf("makefs: cannot merge %s %q with the %s already there",
				c.Type, filepath.Join(srcDir, filepath.FromSlash(c.Path())), old.Type)
		}
	}
	if added {
		sort.Slice(dst.Children, func(i, j int) bool { return dst.Children[i].Name < dst.Children[j].Name })
	}
	return nil
}

// cacheOptions returns the block-cache options every makefs type writes
// its image with: the mode from FIXTUREGEN_CACHE in the command's
// environment.
func (a *makefsArgs) cacheOptions() (*bcache.Options, error) {
	mode, err := bcache.ParseMode(a.Env.getenv(bcache.EnvMode))
	if err != nil {
		return nil, fmt.Errorf("makefs: %s: %v", bcache.EnvMode, err)
	}
	return &bcache.Options{Mode: mode}, nil
}

// optionError turns an error of a format's ParseOption for opt into the
// command's error: a bad option (one that wraps the format's errOption
// sentinel) is a usage error, anything else a plain one.
func optionError(opt fsOption, err, errOption error) error {
	if errors.Is(err, errOption) {
		return usagef("makefs: -o %s: %v", optString(opt), err)
	}
	return fmt.Errorf("makefs: -o %s: %w", optString(opt), err)
}

// optString spells opt as it was given: key or key=value.
func optString(o fsOption) string {
	if o.HasValue {
		return o.Key + "=" + o.Value
	}
	return o.Key
}
