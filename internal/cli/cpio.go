package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/cpio"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/inspect"
	"github.com/fixturegen/fixturegen/imgkit/makefs"
	getoptpkg "github.com/fixturegen/fixturegen/internal/getopt"
)

// The cpio command takes GNU cpio's copy-out command line (-o) and writes
// the bytes GNU cpio 2.13 writes; -t lists and -i extracts an archive.
// --tree, --timestamp and --metadata are fixturegen's own.

func init() {
	register(command{
		Name:    "cpio",
		Usage:   "cpio -o -H newc|crc|odc [options] [--tree DIR] [-F archive] < name-list | cpio -t|-i [-v] [-F archive]",
		Summary: "create, list and extract cpio archives (initramfs), as GNU cpio does",
		Flags:   cpioFlags,
		Help: `With -o the names of the files to archive are read from standard input,
one a line (NUL-separated with -0), as "find . | LC_ALL=C sort" prints
them; --tree DIR reads no list and archives all of DIR in that order. The
archive is written to standard output, or with -F beside its file and
renamed into place when complete. A name that cannot be read is an error
and nothing is written (GNU cpio warns and leaves it out).`,
		Examples: cpioExamples,
		Run:      runCpio,
	})
}

// cpioShort and cpioLong are the options the cpio command reads.
const cpioShort = "0aBC:D:F:H:I:LO:R:itov"

var cpioLong = []getoptpkg.Long{
	{Name: "null"}, {Name: "reset-access-time"}, {Name: "block-size", Arg: getoptpkg.RequiredArg},
	{Name: "io-size", Arg: getoptpkg.RequiredArg}, {Name: "directory", Arg: getoptpkg.RequiredArg},
	{Name: "file", Arg: getoptpkg.RequiredArg}, {Name: "format", Arg: getoptpkg.RequiredArg},
	{Name: "dereference"}, {Name: "owner", Arg: getoptpkg.RequiredArg}, {Name: "extract"},
	{Name: "list"}, {Name: "create"}, {Name: "verbose"}, {Name: "quiet"},
	{Name: "reproducible"}, {Name: "device-independent"}, {Name: "renumber-inodes"}, {Name: "ignore-devno"},
	{Name: "tree", Arg: getoptpkg.RequiredArg}, {Name: "timestamp", Arg: getoptpkg.RequiredArg},
	{Name: "metadata", Arg: getoptpkg.EqualsArg},
}

func cpioFlags() []flagGroup {
	var long []string
	for _, l := range cpioLong {
		long = append(long, l.Name)
	}
	return []flagGroup{{Title: "Options:", Flags: getoptFlags(cpioShort, long, cpioFlagTexts)}}
}

var cpioFlagTexts = map[string]flagText{
	"0": {"", "the names of the list end in NUL, not newline"},
	"a": {"", "accepted and ignored (access times are not changed)"},
	"B": {"", "5120-byte blocks"},
	"C": {"bytes", "blocks of that many bytes (the archive is padded to whole blocks; 512 by default)"},
	"D": {"dir", "take the names of the list from dir"},
	"F": {"archive", "the archive file, in place of standard output (-o) or input (-t, -i)"},
	"H": {"format", "newc, crc or odc (bin, cpio's default, is not written)"},
	"I": {"archive", "as -F, with -t and -i"},
	"i": {"", "extract the archive into the working folder (or -D)"},
	"L": {"", "archive what symbolic links point at"},
	"O": {"archive", "as -F, with -o"},
	"o": {"", "create an archive"},
	"R": {"user[:group]", "owner and group of every entry (names or numbers)"},
	"t": {"", "list the archive (with -v, as ls -l does)"},
	"v": {"", "name each file on standard error (-o, -i) or list long (-t)"},

	"block-size":         {"=n", "blocks of n*512 bytes"},
	"create":             {"", "as -o"},
	"dereference":        {"", "as -L"},
	"device-independent": {"", "as --reproducible"},
	"directory":          {"=dir", "as -D"},
	"extract":            {"", "as -i"},
	"file":               {"=archive", "as -F"},
	"format":             {"=format", "as -H"},
	"ignore-devno":       {"", "store device numbers 0"},
	"io-size":            {"=bytes", "as -C"},
	"list":               {"", "as -t"},
	"metadata":           {"=git|host", "fixturegen's own, with --tree: git stores only what git keeps (owners 0:0, modes 644 or 755, no hard links); host (the default) the files' own"},
	"null":               {"", "as -0"},
	"owner":              {"=user[:group]", "as -R"},
	"quiet":              {"", "do not say how many blocks were written"},
	"renumber-inodes":    {"", "number the inodes from 0 in list order"},
	"reproducible":       {"", "both --renumber-inodes and --ignore-devno: the bytes depend only on the list and the files"},
	"reset-access-time":  {"", "as -a"},
	"timestamp":          {"=time", "fixturegen's own: every entry's time (seconds since the epoch, or a file's time), as makefs -T; SOURCE_DATE_EPOCH clamps the times when set"},
	"tree":               {"=dir", "fixturegen's own: archive dir's whole tree, as cd dir && find . | LC_ALL=C sort | cpio -o does; needs --reproducible"},
	"verbose":            {"", "as -v"},
}

var cpioExamples = []example{
	{"cpio -o -H newc --reproducible --tree root -F initrd.cpio", "an initramfs of the folder root, the same bytes on every run"},
	{"cpio -t -F initrd.cpio", "its names"},
}

// cpioArgs is a parsed cpio command line.
type cpioArgs struct {
	mode                byte // 'o', 'i' or 't'
	format              cpio.Format
	formatSet           bool
	opts                cpio.Options
	null, verbose       bool
	quiet               bool
	archive             string
	archiveArg          int
	tree                string
	timestampArg        string
	metadata            fstree.Metadata
	renumber, ignoreDev bool
}

func parseCpioArgs(e *env, args []string) (*cpioArgs, error) {
	spec := getoptpkg.Spec{Short: cpioShort, Long: cpioLong, Permute: true, Abbrev: true}
	opts, operands, err := spec.Parse(args)
	if err != nil {
		return nil, usagef("cpio: %v", err)
	}
	a := &cpioArgs{}
	setMode := func(m byte) error {
		if a.mode != 0 && a.mode != m {
			return usagef("cpio: Mode already defined")
		}
		a.mode = m
		return nil
	}
	for _, o := range opts {
		name := string(o.Name)
		if o.Name == 0 {
			name = o.Long
		}
		switch name {
		case "o", "create":
			err = setMode('o')
		case "i", "extract":
			err = setMode('i')
		case "t", "list":
			if a.mode != 'i' {
				err = setMode('t')
			}
		case "0", "null":
			a.null = true
		case "a", "reset-access-time":
		case "B":
			a.opts.BlockSize = 5120
		case "block-size", "C", "io-size":
			n, perr := strconv.ParseInt(o.Arg, 10, 64)
			if perr != nil || n < 1 || n > 1<<30 {
				return nil, usagef("cpio: invalid block size %q", o.Arg)
			}
			if name == "block-size" {
				if n > 1<<21 {
					return nil, usagef("cpio: invalid block size %q", o.Arg)
				}
				n *= 512
			}
			a.opts.BlockSize = n
		case "D", "directory":
			a.opts.Dir = o.Arg
		case "F", "file", "O", "I":
			a.archive, a.archiveArg = o.Arg, o.ArgIndex
		case "H", "format":
			if a.formatSet {
				return nil, usagef("cpio: Archive format multiply defined")
			}
			a.formatSet = true
			switch strings.ToLower(o.Arg) {
			case "bin":
				return nil, usagef("cpio: -H bin: the old binary format is not written; give -H newc, crc or odc")
			case "newc", "crc", "odc":
				a.format, _ = cpio.ParseFormat(strings.ToLower(o.Arg))
			default:
				return nil, usagef("cpio: invalid archive format %q; valid formats are newc, crc and odc", o.Arg)
			}
		case "L", "dereference":
			a.opts.Dereference = true
		case "R", "owner":
			if err := parseOwner(o.Arg, &a.opts); err != nil {
				return nil, usagef("cpio: %s: %v", o.Arg, err)
			}
		case "v", "verbose":
			a.verbose = true
		case "quiet":
			a.quiet = true
		case "reproducible", "device-independent":
			a.renumber, a.ignoreDev = true, true
		case "renumber-inodes":
			a.renumber = true
		case "ignore-devno":
			a.ignoreDev = true
		case "tree":
			a.tree = o.Arg
		case "timestamp":
			a.timestampArg = o.Arg
		case "metadata":
			if a.metadata, err = makefs.ParseMetadata(o.Arg); err != nil {
				return nil, usagef("cpio: --metadata=%s: %v", o.Arg, err)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	switch {
	case a.mode == 0:
		return nil, usagef("cpio: You must specify one of -oit options")
	case len(operands) > 0:
		return nil, usagef("cpio: Too many arguments: %s (fixturegen cpio takes no patterns)", operands[0])
	case a.mode == 'o' && !a.formatSet:
		return nil, usagef("cpio: without -H cpio writes the old binary format, which is not written; give -H newc, crc or odc")
	case a.tree != "" && a.mode != 'o':
		return nil, usagef("cpio: --tree is for -o")
	case a.tree != "" && !(a.renumber && a.ignoreDev):
		return nil, usagef("cpio: --tree needs --reproducible (inodes numbered in list order, device numbers 0)")
	case a.tree != "" && a.opts.Dereference:
		return nil, usagef("cpio: --tree does not follow symbolic links (-L)")
	}
	a.opts.Format = a.format
	a.opts.HostInodes, a.opts.HostDevices = !a.renumber, !a.ignoreDev
	if a.opts.Dir != "" {
		a.opts.Dir = e.abs(a.opts.Dir)
	} else {
		a.opts.Dir = e.Dir
	}
	if a.timestampArg != "" {
		ts, err := fstree.ParseTimestamp(e.Dir, a.timestampArg)
		if err != nil {
			return nil, usagef("cpio: --timestamp: %v", err)
		}
		a.opts.Timestamp = ts
	} else if o, err := fstree.OptionsFromEnv(e.getenv); err != nil {
		return nil, fmt.Errorf("cpio: %w", err)
	} else {
		a.opts.Timestamp, a.opts.ClampTimes = o.Timestamp, o.ClampTimes
	}
	return a, nil
}

// parseOwner reads -R's USER[:.][GROUP] as GNU cpio does: names or
// numbers; "USER:" takes the user's login group.
func parseOwner(s string, o *cpio.Options) error {
	u, g, sep := s, "", false
	if i := strings.IndexAny(s, ":."); i >= 0 {
		u, g, sep = s[:i], s[i+1:], true
	}
	if u != "" {
		uid, login, err := lookupUser(u)
		if err != nil {
			return err
		}
		o.UID = &uid
		if sep && g == "" {
			o.GID = &login
		}
	}
	if g != "" {
		gid, err := lookupGroup(g)
		if err != nil {
			return err
		}
		o.GID = &gid
	}
	if o.UID == nil && o.GID == nil {
		return errors.New("no user or group")
	}
	return nil
}

func lookupUser(s string) (uid, gid uint32, err error) {
	users := fstree.HostUsers()
	if u, ok := users.ID(s); ok {
		g, _ := users.PrimaryGroup(s)
		return u, g, nil
	}
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return 0, 0, fmt.Errorf("invalid user %q", s)
	}
	if name, ok := users.Name(uint32(n)); ok {
		g, _ := users.PrimaryGroup(name)
		return uint32(n), g, nil
	}
	return uint32(n), 0, nil
}

func lookupGroup(s string) (uint32, error) {
	if g, ok := fstree.HostGroups().ID(s); ok {
		return g, nil
	}
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("invalid group %q", s)
	}
	return uint32(n), nil
}

func runCpio(e *env, args []string) error {
	a, err := parseCpioArgs(e, args)
	if err != nil {
		return err
	}
	if a.mode != 'o' {
		return e.cpioRead(a)
	}
	var p *cpio.Plan
	var names []string
	if a.tree != "" {
		tree, err := fstree.WalkDir(e.abs(a.tree), &fstree.Options{Metadata: a.metadata})
		if err != nil {
			return fmt.Errorf("cpio: %w", err)
		}
		p, err = cpio.PlanTree(tree, &a.opts)
		if err != nil {
			return err
		}
		names = p.Names()
	} else {
		if names, err = readNameList(e.Stdin, a.null, e.Stderr); err != nil {
			return fmt.Errorf("cpio: reading the name list: %w", err)
		}
		if p, err = cpio.NewPlan(names, &a.opts); err != nil {
			return fmt.Errorf("cpio: %w", trimCpio(err))
		}
	}
	if a.archive == "" {
		if isTerminal(e.Stdout) {
			return errors.New("cpio: archive not written to a terminal; give -F archive, or redirect standard output")
		}
		if _, err := p.WriteTo(e.Stdout); err != nil {
			return fmt.Errorf("cpio: %w", trimCpio(err))
		}
	} else {
		defer e.removeTempsOnSignal("cpio")()
		e.removeLeftovers("cpio", a.archive)
		if err := writeCpioFile(e.abs(a.archive), p); err != nil {
			return fmt.Errorf("cpio: %s: %w", a.archive, trimCpio(err))
		}
	}
	if a.verbose {
		for _, n := range names {
			fmt.Fprintln(e.Stderr, n)
		}
	}
	if !a.quiet {
		block := a.opts.BlockSize
		if block == 0 {
			block = 512
		}
		n := p.Size() / block
		unit := "blocks"
		if n == 1 {
			unit = "block"
		}
		fmt.Fprintf(e.Stderr, "%d %s\n", n, unit)
	}
	return nil
}

// writeCpioFile writes the archive p to path through the block cache: a
// temporary file beside it, renamed into place when complete.
func writeCpioFile(path string, p *cpio.Plan) error {
	im, err := bcache.Create(path, p.Size(), nil)
	if err != nil {
		return err
	}
	defer im.Abort()
	if err := im.Guard(func() error { return p.WriteAtTo(im) }); err != nil {
		return err
	}
	return im.Commit()
}

// trimCpio drops the package's "cpio: " from an error the command words
// itself.
func trimCpio(err error) error {
	return &prefixLess{err}
}

type prefixLess struct{ err error }

func (p *prefixLess) Error() string {
	return strings.Replace(strings.TrimPrefix(p.err.Error(), "cpio: "), ": cpio: ", ": ", 1)
}
func (p *prefixLess) Unwrap() error { return p.err }

// readNameList reads cpio's name list: lines (or NUL-ended names), blank
// ones skipped with cpio's warning.
func readNameList(r io.Reader, null bool, stderr io.Writer) ([]string, error) {
	if r == nil {
		return nil, nil
	}
	sep := byte('\n')
	if null {
		sep = 0
	}
	br := bufio.NewReader(r)
	var names []string
	for {
		s, err := br.ReadString(sep)
		if len(s) > 0 && s[len(s)-1] == sep {
			s = s[:len(s)-1]
		}
		if s == "" && err == nil {
			fmt.Fprintln(stderr, "cpio: blank line ignored")
		} else if s != "" {
			names = append(names, s)
		}
		if err == io.EOF {
			return names, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// cpioRead lists (-t) or extracts (-i) the archive of -F, or of standard
// input.
func (e *env) cpioRead(a *cpioArgs) error {
	var rd *cpio.Reader
	name := a.archive
	if name == "" {
		name = "standard input"
		b, err := io.ReadAll(e.Stdin)
		if err != nil {
			return fmt.Errorf("cpio: reading standard input: %w", err)
		}
		if rd, err = cpio.NewReader(bytes.NewReader(b), int64(len(b))); err != nil {
			return fmt.Errorf("cpio: %s: %w", name, trimCpio(err))
		}
	} else {
		rc, err := cpio.OpenReader(e.abs(a.archive))
		if err != nil {
			return fmt.Errorf("cpio: %w", trimCpio(err))
		}
		defer rc.Close()
		rd = &rc.Reader
	}
	if a.mode == 't' {
		now := time.Now()
		for _, en := range rd.Entries() {
			if en.Header.Name == "TRAILER!!!" {
				continue
			}
			line := en.Header.Name
			if a.verbose {
				line = cpioLongLine(&en, now)
			}
			fmt.Fprintln(e.Stdout, line)
		}
		return nil
	}
	dir := a.opts.Dir
	if dir == "" {
		dir = e.abs(".")
	}
	err := rd.Extract(dir, func(name string, skipped bool) {
		switch {
		case skipped:
			fmt.Fprintf(e.Stderr, "cpio: %s: special file not extracted\n", name)
		case a.verbose:
			fmt.Fprintln(e.Stderr, name)
		}
	})
	if err != nil {
		return fmt.Errorf("cpio: %w", trimCpio(err))
	}
	return nil
}

// modeOf is the fs.FileMode of c_mode, as the reader's FS gives it.
func modeOf(m uint32) os.FileMode { return cpio.FileMode(m) }

// cpioLongLine is an entry as GNU cpio -tv lists it, as ls -l does: the
// mode, the link count, the owner and group by name (by number when the
// host has no name for them), c_filesize (a device's major and minor
// instead), the modification time in the local zone (with the year
// instead of the time of day when it is more than six months of 30 days
// before now, or after it), the name, and a symbolic link's target.
func cpioLongLine(en *cpio.Entry, now time.Time) string {
	owner, group := ownerName(fstree.HostUsers(), en.UID), ownerName(fstree.HostGroups(), en.GID)
	sizeText := fmt.Sprintf("%8d", en.Size) // c_filesize: 0 for a hard link stored without its data
	if t := en.Mode & cpio.ModeType; t == cpio.ModeChar || t == cpio.ModeBlock {
		sizeText = fmt.Sprintf("%3d, %3d", en.RdevMajor, en.RdevMinor)
	}
	mtime := time.Unix(en.Mtime, 0).Local()
	when := mtime.Format("Jan _2 15:04")
	if age := now.Sub(mtime); age > 6*30*24*time.Hour || age < 0 {
		when = mtime.Format("Jan _2  2006")
	}
	line := fmt.Sprintf("%s %3d %-8.8s %-8.8s %s %s %s", inspect.ModeString(modeOf(en.Mode)), en.Nlink, owner, group, sizeText, when, en.Header.Name)
	if en.Link != "" {
		line += " -> " + en.Link
	}
	return line
}

// ownerName returns the name db (the host's users or groups) has for
// id, or the number when it has none, as cpio -tv shows an owner.
func ownerName(db *fstree.UserDB, id uint32) string {
	if n, ok := db.Name(id); ok {
		return n
	}
	return strconv.FormatUint(uint64(id), 10)
}
