package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/ar"
	"github.com/fixturegen/fixturegen/imgkit/bcache"
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

	// arArchive and arFiles are the indexes in the command line of the
	// archive and of the files, for the catalogue's plan.
	arArchive int
	arFiles   []int
}

const arOps = "dmpqrstx"

func runAr(e *env, args []string) error {
	c, err := parseArArgs(e, args)
	if err != nil {
		return err
	}
	return c.run()
}

// parseArArgs parses the ar command line; the command records which
// argument names the archive and which the files (arArchive, arFiles).
func parseArArgs(e *env, args []string) (*arCmd, error) {
	c := &arCmd{e: e, det: true, count: 1}
	var key string
	var rest []string
	var restIdx []int
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--thin":
			c.thin = true
		case strings.HasPrefix(a, "--format=") || a == "--format":
			v := strings.TrimPrefix(a, "--format=")
			if a == "--format" {
				if i+1 >= len(args) {
					return nil, errors.New("ar: --format needs a value: gnu or bsd")
				}
				i++
				v = args[i]
			}
			switch v {
			case "gnu", "default":
				c.format = ar.FormatGNU
			case "bsd":
				c.format = ar.FormatBSD
			default:
				return nil, fmt.Errorf("ar: --format=%s: unknown format; use gnu or bsd", v)
			}
			c.formatSet = true
		case strings.HasPrefix(a, "--compat="):
			switch v := strings.TrimPrefix(a, "--compat="); v {
			case "gnu":
				c.compat = ar.CompatGNU
			case "llvm":
				c.compat = ar.CompatLLVM
			default:
				return nil, fmt.Errorf("ar: --compat=%s: unknown; use gnu or llvm", v)
			}
		case strings.HasPrefix(a, "--"):
			return nil, fmt.Errorf("ar: unknown option %s", a)
		case key == "":
			key = a
		default:
			rest = append(rest, a)
			restIdx = append(restIdx, i)
		}
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
	need := func(what string) (string, error) {
		if len(rest) == 0 {
			return "", usagef("ar: missing %s", what)
		}
		v := rest[0]
		c.arArchive = restIdx[0]
		rest, restIdx = rest[1:], restIdx[1:]
		return v, nil
	}
	var err error
	if c.relpos != "" || strings.ContainsAny(key, "abi") && strings.ContainsAny(key, "mr") {
		if c.relpos, err = need("relpos member name"); err != nil {
			return nil, err
		}
	}
	if strings.ContainsRune(key, 'N') {
		v, err := need("count for N")
		if err != nil {
			return nil, err
		}
		n, perr := strconv.Atoi(v)
		if perr != nil || n < 1 {
			return nil, fmt.Errorf("ar: N: bad count %q", v)
		}
		c.count = n
	}
	if c.archive, err = need("archive"); err != nil {
		return nil, err
	}
	c.files, c.arFiles = rest, restIdx
	return c, nil
}

// parseKey reads the operation letter and modifiers, as GNU ar does.
func (c *arCmd) parseKey(key string) error {
	k := strings.TrimPrefix(key, "-")
	if k == "" {
		return errors.New("ar: missing operation")
	}
	sawS := false
	for i := 0; i < len(k); i++ {
		ch := k[i]
		if ch == 's' {
			sawS = true
			continue
		}
		if strings.IndexByte(arOps, ch) >= 0 {
			if c.op != 0 && c.op != ch {
				return fmt.Errorf("ar: two different operations given: %c and %c", c.op, ch)
			}
			c.op = ch
			continue
		}
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
			return fmt.Errorf("ar: modifier %c is not supported", ch)
		default:
			return fmt.Errorf("ar: unknown operation or modifier %q in %q", ch, key)
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
		return fmt.Errorf("ar: no operation in %q: use one of d, m, p, q, r, s, t, x", key)
	}
	if c.relpos != "" {
		c.relpos = "?" // the name is the next argument
		if c.op != 'm' && c.op != 'r' {
			c.relpos = ""
		}
	}
	return nil
}

// memberName is the name a file is stored and matched under.
func (c *arCmd) memberName(file string) string {
	if c.fullPath {
		return filepath.ToSlash(file)
	}
	n := filepath.Base(file)
	if c.truncate && len(n) > 15 {
		n = n[:15]
	}
	return n
}

// loaded is the archive as read from disk.
type loaded struct {
	rc      *ar.ReadCloser
	r       *ar.Reader // &rc.Reader
	perm    fs.FileMode
	exists  bool
	entries []ar.Entry
	orig    []bool // entries[i] came from the archive (GNU's arelt_data)
	extra   []*os.File
	inMem   int64 // bytes of member files read whole by newEntry
}

// Member files of up to memberReadWhole bytes are read whole, within a
// budget of memberMemBudget bytes for all of them, and closed at once.
// Holding every member file open costs more than the read: once a
// multithreaded process (every Go program) holds more descriptors than
// its table has room for, the kernel grows the table and waits for an
// RCU grace period (expand_files, synchronize_rcu). For "ar rcsD" of 500
// objects, the openat that took descriptor 256 slept 6.7 ms of a 20 ms
// run (strace -T; perf sched_switch showed it as the one D-state wait).
// Bigger members stay open so that their data takes the image's bulk path.
const (
	memberReadWhole = 64 << 10
	memberMemBudget = 64 << 20
)

func (c *arCmd) load() (*loaded, error) {
	path := c.e.abs(c.archive)
	l := &loaded{perm: 0o644}
	rc, err := ar.OpenReader(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return l, nil
		}
		if pe, ok := err.(*fs.PathError); ok {
			// Opening or stating the file failed; a damaged archive
			// gives an error of the ar package instead.
			return nil, fmt.Errorf("ar: %s: %w", c.archive, pe.Err)
		}
		return nil, libError(c.archive, err)
	}
	l.rc, l.r, l.exists = rc, &rc.Reader, true
	st, err := os.Stat(path)
	if err != nil {
		l.close()
		return nil, fmt.Errorf("ar: %s: %w", c.archive, unwrapPath(err))
	}
	l.perm = st.Mode().Perm()
	r := l.r
	for i, m := range r.Members() {
		e := ar.Entry{Header: m.Header}
		if r.Thin() {
			mf, err := os.Open(filepath.Join(filepath.Dir(path), filepath.FromSlash(m.Name)))
			if err != nil {
				l.close()
				return nil, fmt.Errorf("ar: %s: thin member %s: %w", c.archive, m.Name, unwrapPath(err))
			}
			l.extra = append(l.extra, mf)
			e.Data = mf
		} else {
			sr, _ := r.Section(i)
			e.Data = sr
		}
		l.entries = append(l.entries, e)
		l.orig = append(l.orig, true)
	}
	if !c.formatSet && r.Format() == ar.FormatBSD && c.compat == ar.CompatLLVM {
		c.format = ar.FormatBSD
	}
	return l, nil
}

func (l *loaded) close() {
	if l.rc != nil {
		l.rc.Close()
	}
	for _, f := range l.extra {
		f.Close()
	}
}

// unwrapPath drops the *PathError wrapper, whose path is already in the
// message.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (c *arCmd) run() error {
	l, err := c.load()
	if err != nil {
		return err
	}
	defer l.close()
	if !l.exists {
		switch c.op {
		case 'r', 'q':
			if !c.create {
				fmt.Fprintf(c.e.Stderr, "ar: creating %s\n", c.archive)
			}
		default:
			return fmt.Errorf("ar: %s: no such file or directory", c.archive)
		}
	} else if c.op == 'r' || c.op == 'q' {
		// As GNU ar, refuse to change the kind of an existing archive.
		if c.thin && !l.r.Thin() && len(l.entries) > 0 {
			return fmt.Errorf("ar: %s: cannot convert an existing archive to a thin archive", c.archive)
		}
		if !c.thin && l.r.Thin() {
			return fmt.Errorf("ar: %s: cannot convert an existing thin archive to a normal archive", c.archive)
		}
	}
	if l.exists && l.r.Thin() {
		c.thin = true
	}
	switch c.op {
	case 't':
		return c.list(l)
	case 'p':
		return c.print(l)
	case 'x':
		return c.extract(l)
	case 'd':
		c.delete(l)
	case 'm':
		if err := c.move(l); err != nil {
			return err
		}
		if c.compat == ar.CompatLLVM {
			c.moveLLVM(l)
		}
	case 'r', 'q':
		if err := c.replace(l); err != nil {
			return err
		}
	case 's':
	}
	return c.write(l)
}

// newEntry makes the entry for a file named on the command line.
func (c *arCmd) newEntry(l *loaded, file string) (ar.Entry, error) {
	path := c.e.abs(file)
	f, err := os.Open(path)
	if err != nil {
		return ar.Entry{}, fmt.Errorf("ar: %s: %w", file, unwrapPath(err))
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return ar.Entry{}, fmt.Errorf("ar: %s: %w", file, unwrapPath(err))
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return ar.Entry{}, fmt.Errorf("ar: %s: not a regular file", file)
	}
	var data io.ReaderAt = f
	if n := st.Size(); n <= memberReadWhole && l.inMem+n <= memberMemBudget {
		b := make([]byte, n)
		_, err := io.ReadFull(f, b)
		f.Close()
		if err != nil {
			return ar.Entry{}, fmt.Errorf("ar: %s: %w", file, unwrapPath(err))
		}
		l.inMem += n
		data = bytes.NewReader(b)
	} else {
		l.extra = append(l.extra, f)
	}
	name := c.memberName(file)
	if c.thin {
		rel, err := filepath.Rel(filepath.Dir(c.e.abs(c.archive)), path)
		if err != nil {
			rel = path
		}
		name = filepath.ToSlash(rel)
	}
	h := ar.Header{Name: name, Size: st.Size(), Mode: 0o644}
	if !c.det {
		h.ModTime = st.ModTime().Truncate(time.Second)
		h.Uid, h.Gid, h.Mode = fileOwner(st)
		if c.compat == ar.CompatLLVM {
			h.Mode &= 0o7777
		}
	}
	return ar.Entry{Header: h, Data: data}, nil
}

// matches reports whether member name m is the one file names.
func (c *arCmd) matches(file, m string) bool {
	if c.thin || c.fullPath {
		return filepath.ToSlash(file) == m || c.memberName(file) == m
	}
	return c.memberName(file) == m
}

// position returns the index at which to insert, for relpos, or def.
func (c *arCmd) position(entries []ar.Entry, def int) int {
	if c.relpos == "" {
		return def
	}
	for i := range entries {
		if entries[i].Name == c.relpos {
			if c.posAfter {
				return i + 1
			}
			return i
		}
	}
	return len(entries) // GNU: a missing relpos means the end
}

func insertAt[T any](s []T, i int, v T) []T {
	s = append(s, v)
	copy(s[i+1:], s[i:])
	s[i] = v
	return s
}

func removeAt[T any](s []T, i int) []T { return append(s[:i], s[i+1:]...) }

// replace implements r (insert or replace, in place) and q (append).
func (c *arCmd) replace(l *loaded) error {
	for _, file := range c.files {
		found := -1
		if c.op == 'r' {
			for i := range l.entries {
				if l.orig[i] && c.matches(file, l.entries[i].Name) {
					found = i
					break
				}
			}
		}
		if found >= 0 && c.newer {
			st, err := os.Stat(c.e.abs(file))
			if err != nil {
				return fmt.Errorf("ar: %s: %w", file, unwrapPath(err))
			}
			if !st.ModTime().After(l.entries[found].ModTime) {
				continue
			}
		}
		e, err := c.newEntry(l, file)
		if err != nil {
			return err
		}
		if found >= 0 {
			// GNU ar links the new member in after the old one (or at
			// relpos) and then unlinks the old one.
			at := found + 1
			if c.relpos != "" {
				at = c.position(l.entries, at)
			}
			l.entries = insertAt(l.entries, at, e)
			l.orig = insertAt(l.orig, at, false)
			if at <= found {
				found++
			}
			l.entries = removeAt(l.entries, found)
			l.orig = removeAt(l.orig, found)
			if c.verbose {
				fmt.Fprintf(c.e.Stdout, "r - %s\n", file)
			}
			continue
		}
		at := len(l.entries)
		if c.op == 'r' {
			at = c.position(l.entries, at)
		}
		l.entries = insertAt(l.entries, at, e)
		l.orig = insertAt(l.orig, at, false)
		if c.verbose {
			fmt.Fprintf(c.e.Stdout, "a - %s\n", file)
		}
	}
	return nil
}

// delete implements d: the first (or the count-th) member of each name.
func (c *arCmd) delete(l *loaded) {
	for _, file := range c.files {
		n := 0
		found := false
		for i := range l.entries {
			if !c.matches(file, l.entries[i].Name) {
				continue
			}
			n++
			if n != c.count {
				continue
			}
			if c.verbose {
				fmt.Fprintf(c.e.Stdout, "d - %s\n", file)
			}
			l.entries = removeAt(l.entries, i)
			l.orig = removeAt(l.orig, i)
			found = true
			break
		}
		if !found && c.verbose {
			fmt.Fprintf(c.e.Stdout, "No member named `%s'\n", file)
		}
	}
}

// move implements m: each named member, in command-line order, goes to the
// end or right after/before relpos.
func (c *arCmd) move(l *loaded) error {
	for _, file := range c.files {
		i := -1
		for j := range l.entries {
			if c.matches(file, l.entries[j].Name) {
				i = j
				break
			}
		}
		if i < 0 {
			return fmt.Errorf("ar: %s: no entry %s in archive", c.archive, file)
		}
		if c.compat == ar.CompatLLVM {
			continue
		}
		e, o := l.entries[i], l.orig[i]
		l.entries = removeAt(l.entries, i)
		l.orig = removeAt(l.orig, i)
		at := c.position(l.entries, len(l.entries))
		l.entries = insertAt(l.entries, at, e)
		l.orig = insertAt(l.orig, at, o)
		if c.verbose {
			fmt.Fprintf(c.e.Stdout, "m - %s\n", file)
		}
	}
	return nil
}

// moveLLVM is m as llvm-ar does it: the named members leave their places
// and go, in archive order, as one block to the end or to relpos.
func (c *arCmd) moveLLVM(l *loaded) {
	var moved []ar.Entry
	var keep []ar.Entry
	for _, e := range l.entries {
		hit := false
		for _, file := range c.files {
			if c.matches(file, e.Name) {
				hit = true
				break
			}
		}
		if hit {
			moved = append(moved, e)
		} else {
			keep = append(keep, e)
		}
	}
	at := c.position(keep, len(keep))
	out := append(append(append([]ar.Entry{}, keep[:at]...), moved...), keep[at:]...)
	l.entries = out
	l.orig = make([]bool, len(out))
	for i := range l.orig {
		l.orig[i] = true
	}
}

// selected calls fn for the members the command line names (all when none
// is named), and reports the names not found.
func (c *arCmd) selected(l *loaded, fn func(i int, m *ar.Member) error) error {
	ms := l.r.Members()
	if len(c.files) == 0 {
		for i := range ms {
			if err := fn(i, &ms[i]); err != nil {
				return err
			}
		}
		return nil
	}
	var missing []string
	for _, file := range c.files {
		n, found := 0, false
		for i := range ms {
			if !c.matches(file, ms[i].Name) {
				continue
			}
			n++
			if c.counted && n != c.count {
				continue
			}
			found = true
			if err := fn(i, &ms[i]); err != nil {
				return err
			}
		}
		if !found {
			missing = append(missing, file)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("ar: %s: no entry %s in archive", c.archive, strings.Join(missing, ", "))
	}
	return nil
}

func (c *arCmd) list(l *loaded) error {
	return c.selected(l, func(i int, m *ar.Member) error {
		line := m.Name
		if c.verbose {
			line = fmt.Sprintf("%s %d/%d %6d %s %s", modeString(m.Mode), m.Uid, m.Gid, m.Size,
				m.ModTime.UTC().Format("Jan _2 15:04 2006"), m.Name)
		}
		if c.offsets && m.DataOffset >= 0 {
			line += fmt.Sprintf(" 0x%x", m.DataOffset)
		}
		_, err := fmt.Fprintln(c.e.Stdout, line)
		return err
	})
}

func (c *arCmd) print(l *loaded) error {
	return c.selected(l, func(i int, m *ar.Member) error {
		if c.verbose {
			fmt.Fprintf(c.e.Stdout, "\n<%s>\n\n", m.Name)
		}
		sr, err := l.r.Section(i)
		if err != nil {
			return fmt.Errorf("ar: %s: %w", c.archive, err)
		}
		_, err = io.Copy(c.e.Stdout, sr)
		return err
	})
}

func (c *arCmd) extract(l *loaded) error {
	if l.r.Thin() {
		return fmt.Errorf("ar: %s: cannot extract members of a thin archive", c.archive)
	}
	return c.selected(l, func(i int, m *ar.Member) error {
		name := m.Name
		if !fs.ValidPath(name) || strings.Contains(name, "/") && !c.fullPath {
			return fmt.Errorf("ar: %s: member %q: illegal output pathname", c.archive, name)
		}
		if c.verbose {
			fmt.Fprintf(c.e.Stdout, "x - %s\n", name)
		}
		sr, err := l.r.Section(i)
		if err != nil {
			return fmt.Errorf("ar: %s: %w", c.archive, err)
		}
		out := c.e.abs(filepath.FromSlash(name))
		f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return fmt.Errorf("ar: %s: %w", name, unwrapPath(err))
		}
		if _, err := io.Copy(f, sr); err != nil {
			f.Close()
			return fmt.Errorf("ar: %s: %w", name, err)
		}
		if err := f.Chmod(fs.FileMode(m.Mode & 0o777)); err != nil {
			f.Close()
			return fmt.Errorf("ar: %s: %w", name, err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("ar: %s: %w", name, err)
		}
		if c.keepDates {
			if err := os.Chtimes(out, m.ModTime, m.ModTime); err != nil {
				return fmt.Errorf("ar: %s: %w", name, err)
			}
		}
		return nil
	})
}

// write lays the archive out and replaces the file atomically.
func (c *arCmd) write(l *loaded) error {
	if c.thin && c.format == ar.FormatBSD {
		return fmt.Errorf("ar: %s: only the gnu format has a thin mode (T, --thin with --format=bsd)", c.archive)
	}
	opts := &ar.Options{Format: c.format, Compat: c.compat, Thin: c.thin, NoIndex: c.noIndex}
	if !c.det {
		opts.IndexTime = time.Now()
	}
	if v := c.e.getenv("FIXTUREGEN_AR_SYM64_THRESHOLD"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return fmt.Errorf("ar: FIXTUREGEN_AR_SYM64_THRESHOLD=%s: not a positive number", v)
		}
		opts.Sym64Threshold = n
	}
	p, err := ar.NewPlan(l.entries, opts)
	if err != nil {
		return libError(c.archive, err)
	}
	// ModeAuto: bcache takes FIXTUREGEN_CACHE, else the mapping. No mode
	// is picked by member size any more: since bcache's WriteAt and
	// CopyFrom write with pwrite in mmap mode too, "ar rcsD out.a" of one
	// 16 MiB object took 9.0-9.9 ms in the default mode against 11-13 ms
	// in copy mode with copy_file_range (the fixturegen binary, best of
	// 30, the objects of imgkit/ar's BenchmarkRcsD16MiB).
	bo := &bcache.Options{Perm: l.perm}
	return writeArchive(c.e.abs(c.archive), c.archive, p, bo)
}

// writeArchive writes p into a new file beside path and renames it over
// path only when complete.
func writeArchive(path, shown string, p *ar.Plan, bo *bcache.Options) error {
	im, err := bcache.Create(path, p.Size(), bo)
	if err != nil {
		return fmt.Errorf("ar: %s: %w", shown, err)
	}
	defer im.Abort()
	if err := im.Guard(func() error { return p.WriteAtTo(im) }); err != nil {
		return fmt.Errorf("ar: %s: %w", shown, err)
	}
	if err := im.Commit(); err != nil {
		return fmt.Errorf("ar: %s: %w", shown, err)
	}
	return nil
}

// modeString formats permission bits as ls -l does, without the type.
func modeString(mode int64) string {
	const rwx = "rwxrwxrwx"
	b := []byte("---------")
	for i := 0; i < 9; i++ {
		if mode&(1<<(8-i)) != 0 {
			b[i] = rwx[i]
		}
	}
	set := func(bit int64, i int, lower, upper byte) {
		if mode&bit != 0 {
			if b[i] != '-' {
				b[i] = lower
			} else {
				b[i] = upper
			}
		}
	}
	set(0o4000, 2, 's', 'S')
	set(0o2000, 5, 's', 'S')
	set(0o1000, 8, 't', 'T')
	return string(b)
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
			return fmt.Errorf("ranlib: unknown option %s", a)
		default:
			files = append(files, a)
		}
	}
	if len(files) == 0 {
		return usagef("ranlib: missing archive")
	}
	for _, f := range files {
		c := &arCmd{e: e, op: 's', det: det, count: 1, archive: f, create: true}
		l, err := c.load()
		if err != nil {
			return rewrap(err)
		}
		if !l.exists {
			return fmt.Errorf("ranlib: %s: no such file or directory", f)
		}
		if l.r.Thin() {
			c.thin = true
		}
		err = c.write(l)
		l.close()
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

// libError prefixes an imgkit/ar error with the command and file name,
// dropping the library's own "ar: " prefix.
func libError(file string, err error) error {
	return &fileError{file: file, err: err}
}

type fileError struct {
	file string
	err  error
}

func (e *fileError) Error() string {
	return "ar: " + e.file + ": " + strings.TrimPrefix(e.err.Error(), "ar: ")
}

func (e *fileError) Unwrap() error { return e.err }
