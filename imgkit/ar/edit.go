package ar

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
	"github.com/fixturegen/fixturegen/imgkit/progress"
)

// ErrThinBSD is returned by Archive.Commit when EditOptions ask for a thin
// archive (Options.Thin, or an existing thin archive) in FormatBSD: only the
// GNU layout has a thin mode.
var ErrThinBSD = errors.New("ar: Options.Thin with FormatBSD: only the gnu format has a thin mode")

// EditOptions control how an Archive edits an archive file, as the
// modifiers of GNU ar (or llvm-ar, with Options.Compat set to CompatLLVM)
// do. The zero value edits as "ar D" does: members take date 0, uid 0,
// gid 0 and mode 644, and are matched by base name.
type EditOptions struct {
	// Options is the layout Commit writes. An existing thin archive is
	// always written back thin.
	Options

	// Dir is the directory that relative paths (the archive's and those
	// of member files) are resolved against; empty means the current
	// directory. Messages and errors show the paths as given.
	Dir string

	// RelPos names the member that Replace and Move position at (a, b or
	// i): new and moved members go before it, or after it when After is
	// set. A RelPos that names no member means the end, as in GNU ar.
	RelPos string
	After  bool

	// Count picks the Count-th member of a repeated name (N): Delete
	// removes it, Select and Extract pick only it. 0 means that Delete
	// removes the first and Select picks every member of the name.
	Count int

	// FullPath stores and matches members under the path given, with
	// '/' separators, instead of its base name (P); Extract then creates
	// files in subdirectories of Dir (which must exist).
	FullPath bool
	// Truncate cuts base names to 15 bytes (f).
	Truncate bool
	// Update makes Replace skip a file whose modification time is not
	// after the date of the member it would replace (u).
	Update bool
	// FileMetadata stores each file's modification time, uid, gid and
	// mode instead of 0, 0, 0 and 644 (U), and dates the index with the
	// time of Commit when Options.IndexTime is zero. With CompatGNU the
	// mode is the whole st_mode (100644), with CompatLLVM its low 12 bits.
	FileMetadata bool
	// KeepDates makes Extract set each file's modification time to the
	// member's date (o).
	KeepDates bool
	// KeepFormat, with CompatLLVM, writes an existing FormatBSD archive
	// back as FormatBSD whatever Options.Format says, as llvm-ar does
	// when no --format is given.
	KeepFormat bool

	// Verbose, when not nil, receives the lines GNU ar's v modifier
	// prints for r, q, d, m and x ("a - file", "r - file", "d - file",
	// "No member named `file'", "m - file", "x - name").
	Verbose io.Writer

	// Progress, when not nil, is told how far Commit is, so that a
	// caller can show how far a long Commit is from another goroutine:
	// its step "writing" of the new archive's size, and the bytes written
	// into it as they are written (bcache.Options.Progress).
	Progress *progress.Meter
}

// An Archive is an archive file opened for editing. Replace, Append,
// Delete and Move change the list of members in memory; Commit writes it
// into a new file beside the archive and renames that over the archive
// only when complete; Close releases the files the Archive holds open.
// An Archive is not safe for concurrent use.
type Archive struct {
	name string // as given to OpenArchive
	path string // resolved against Dir
	opts EditOptions
	// wantThin is Options.Thin as asked, before an existing thin archive
	// forces it.
	wantThin bool

	rc      *ReadCloser
	perm    fs.FileMode
	entries []Entry
	orig    []bool // entries[i] came from the archive (GNU's arelt_data)
	extra   []*os.File
	inMem   int64 // bytes of member files read whole by newEntry
}

// Member files of up to memberReadWhole bytes are read whole, within a
// budget of memberMemBudget bytes for all of them, and closed at once.
// Holding every member file open costs more than the read: once a
// multithreaded process (every Go program) holds more descriptors than
// its table has room for, the kernel grows the table and waits for an
// RCU grace period (expand_files, synchronize_rcu), which dominates a
// run of many small objects (BENCHMARKS.md). Bigger members stay open so
// that their data takes the image's bulk path.
const (
	memberReadWhole = 64 << 10
	memberMemBudget = 64 << 20
)

// OpenArchive opens the archive file name for editing. A file that does
// not exist gives an empty Archive, whose Exists reports false, that
// Commit creates. opts may be nil for the zero EditOptions.
func OpenArchive(name string, opts *EditOptions) (*Archive, error) {
	a := &Archive{name: name, perm: 0o644}
	if opts != nil {
		a.opts = *opts
	}
	a.wantThin = a.opts.Thin
	a.path = a.abs(name)
	// Commit writes through bcache.Create, so the archive is new exactly
	// when Create will make it (a new name, a link to nothing), and the
	// permission kept is that of the file the links lead to.
	t, terr := bcache.ResolveTarget(a.path)
	switch {
	case terr == nil && t.Kind == bcache.TargetCreate:
		return a, nil
	case errors.Is(terr, bcache.ErrNotWritable):
		return nil, a.imageErr(terr) // a socket, which open(2) refuses as ENXIO
	}
	// A folder, device or pipe is refused here in the reader's
	// words ("not a regular file (a named pipe)"): an archive to edit
	// is read first, and none of them holds one.
	rc, err := OpenReader(a.path)
	if err != nil {
		if pe, ok := err.(*fs.PathError); ok {
			// Opening or stating the file failed; a damaged archive
			// gives an error of this package instead.
			return nil, fmt.Errorf("ar: %s: %w", name, pe.Err)
		}
		return nil, a.wrap(err)
	}
	a.rc = rc
	if terr != nil {
		a.Close()
		return nil, a.imageErr(terr)
	}
	a.perm = t.Info.Mode().Perm()
	r := &rc.Reader
	for i, m := range r.Members() {
		e := Entry{Header: m.Header}
		if r.Thin() {
			// Listing and printing need no member file but the ones
			// they print, so each is opened (and checked) on first read.
			e.Data = thinMemberData{r: r, i: i}
		} else {
			sr, _ := r.Section(i)
			e.Data = sr
		}
		a.entries = append(a.entries, e)
		a.orig = append(a.orig, true)
	}
	if a.opts.KeepFormat && r.Format() == FormatBSD && a.opts.Compat == CompatLLVM {
		a.opts.Format = FormatBSD
	}
	if r.Thin() {
		a.opts.Thin = true
	}
	return a, nil
}

// thinMemberData is the data of member i of the thin archive r, read
// through r.Section on first use.
type thinMemberData struct {
	r *Reader
	i int
}

func (d thinMemberData) ReadAt(p []byte, off int64) (int, error) {
	sr, err := d.r.Section(d.i)
	if err != nil {
		return 0, err
	}
	return sr.ReadAt(p, off)
}

// Exists reports whether the archive file existed when it was opened.
func (a *Archive) Exists() bool { return a.rc != nil }

// Reader returns the archive as read when it was opened, or nil when the
// file did not exist. Its Members are indexed as Select's results are.
func (a *Archive) Reader() *Reader {
	if a.rc == nil {
		return nil
	}
	return &a.rc.Reader
}

// Entries returns the members as Commit would write them now. The slice
// belongs to the Archive and is valid until its next change.
func (a *Archive) Entries() []Entry { return a.entries }

// Close closes the archive file and the member files the Archive holds
// open. It does not write anything; call Commit first to keep the edits.
func (a *Archive) Close() error {
	var err error
	if a.rc != nil {
		err = a.rc.Close()
		a.rc = nil
	}
	for _, f := range a.extra {
		f.Close()
	}
	a.extra = nil
	return err
}

func (a *Archive) abs(path string) string {
	if filepath.IsAbs(path) || a.opts.Dir == "" {
		return filepath.Clean(path)
	}
	return filepath.Join(a.opts.Dir, path)
}

func (a *Archive) verbosef(format string, args ...any) {
	if a.opts.Verbose != nil {
		fmt.Fprintf(a.opts.Verbose, format, args...)
	}
}

// wrap prefixes an error of this package with the archive's name.
func (a *Archive) wrap(err error) error { return &editError{file: a.name, err: err} }

type editError struct {
	file string
	err  error
}

func (e *editError) Error() string {
	return "ar: " + e.file + ": " + strings.TrimPrefix(e.err.Error(), "ar: ")
}

func (e *editError) Unwrap() error { return e.err }

// unwrapPath drops the *PathError wrapper, whose path is already in the
// message.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// memberName is the name a file is stored and matched under.
func (a *Archive) memberName(file string) string {
	if a.opts.FullPath {
		return filepath.ToSlash(file)
	}
	n := filepath.Base(file)
	if a.opts.Truncate && len(n) > 15 {
		n = n[:15]
	}
	return n
}

// matches reports whether member name m is the one file names.
func (a *Archive) matches(file, m string) bool {
	if a.opts.Thin || a.opts.FullPath {
		return filepath.ToSlash(file) == m || a.memberName(file) == m
	}
	return a.memberName(file) == m
}

// position returns the index at which to insert, for RelPos, or def.
func (a *Archive) position(entries []Entry, def int) int {
	if a.opts.RelPos == "" {
		return def
	}
	for i := range entries {
		if entries[i].Name == a.opts.RelPos {
			if a.opts.After {
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

// newEntry makes the entry for a member file.
func (a *Archive) newEntry(file string) (Entry, error) {
	path := a.abs(file)
	// imgfmt.OpenFile refuses a named pipe at once, where an open would
	// wait for a writer.
	f, _, err := imgfmt.OpenFile(path)
	if errors.Is(err, imgfmt.ErrNotRegular) {
		return Entry{}, fmt.Errorf("ar: %s: not a regular file", file)
	}
	if err != nil {
		return Entry{}, fmt.Errorf("ar: %s: %w", file, unwrapPath(err))
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return Entry{}, fmt.Errorf("ar: %s: %w", file, unwrapPath(err))
	}
	var data io.ReaderAt = f
	if n := st.Size(); n <= memberReadWhole && a.inMem+n <= memberMemBudget {
		b := make([]byte, n)
		_, err := io.ReadFull(f, b)
		f.Close()
		if err != nil {
			return Entry{}, fmt.Errorf("ar: %s: %w", file, unwrapPath(err))
		}
		a.inMem += n
		data = bytes.NewReader(b)
	} else {
		a.extra = append(a.extra, f)
	}
	name := a.memberName(file)
	if a.opts.Thin {
		rel, err := filepath.Rel(filepath.Dir(a.path), path)
		if err != nil {
			rel = path
		}
		name = filepath.ToSlash(rel)
	}
	h := Header{Name: name, Size: st.Size(), Mode: 0o644}
	if a.opts.FileMetadata {
		h.ModTime = st.ModTime().Truncate(time.Second)
		h.Uid, h.Gid, h.Mode = fileOwner(st)
		if a.opts.Compat == CompatLLVM {
			h.Mode &= 0o7777
		}
	}
	return Entry{Header: h, Data: data}, nil
}

// checkKind refuses to change the kind (thin or regular) of an existing
// archive, as GNU ar does.
func (a *Archive) checkKind() error {
	r := a.Reader()
	if r == nil {
		return nil
	}
	if a.wantThin && !r.Thin() && len(a.entries) > 0 {
		return fmt.Errorf("ar: %s: cannot convert an existing archive to a thin archive", a.name)
	}
	if !a.wantThin && r.Thin() {
		return fmt.Errorf("ar: %s: cannot convert an existing thin archive to a normal archive", a.name)
	}
	return nil
}

// Replace inserts the files as members, or replaces the members of their
// names in place, as "ar r" does: a member read from the archive is
// replaced (only the first of its name; with Update only by a newer file),
// a new member goes to the end or to RelPos, and so does a replacement
// when RelPos is set. Files added by this call are never replaced by it.
func (a *Archive) Replace(files ...string) error { return a.add(files, true) }

// Append adds the files as members at the end, as "ar q" does, whatever
// members the archive already has of their names.
func (a *Archive) Append(files ...string) error { return a.add(files, false) }

func (a *Archive) add(files []string, replace bool) error {
	if err := a.checkKind(); err != nil {
		return err
	}
	for _, file := range files {
		found := -1
		if replace {
			for i := range a.entries {
				if a.orig[i] && a.matches(file, a.entries[i].Name) {
					found = i
					break
				}
			}
		}
		if found >= 0 && a.opts.Update {
			st, err := os.Stat(a.abs(file))
			if err != nil {
				return fmt.Errorf("ar: %s: %w", file, unwrapPath(err))
			}
			if !st.ModTime().After(a.entries[found].ModTime) {
				continue
			}
		}
		e, err := a.newEntry(file)
		if err != nil {
			return err
		}
		if found >= 0 {
			// GNU ar links the new member in after the old one (or at
			// relpos) and then unlinks the old one.
			at := a.position(a.entries, found+1)
			a.entries = insertAt(a.entries, at, e)
			a.orig = insertAt(a.orig, at, false)
			if at <= found {
				found++
			}
			a.entries = removeAt(a.entries, found)
			a.orig = removeAt(a.orig, found)
			a.verbosef("r - %s\n", file)
			continue
		}
		at := len(a.entries)
		if replace {
			at = a.position(a.entries, at)
		}
		a.entries = insertAt(a.entries, at, e)
		a.orig = insertAt(a.orig, at, false)
		a.verbosef("a - %s\n", file)
	}
	return nil
}

// Delete removes the first member of each name (the Count-th, with
// Count), as "ar d" does. A name that matches no member is not an error;
// with Verbose it is reported there.
func (a *Archive) Delete(names ...string) {
	want := max(a.opts.Count, 1)
	for _, file := range names {
		n := 0
		found := false
		for i := range a.entries {
			if !a.matches(file, a.entries[i].Name) {
				continue
			}
			n++
			if n != want {
				continue
			}
			a.verbosef("d - %s\n", file)
			a.entries = removeAt(a.entries, i)
			a.orig = removeAt(a.orig, i)
			found = true
			break
		}
		if !found {
			a.verbosef("No member named `%s'\n", file)
		}
	}
}

// Move moves the named members to the end, or to RelPos, as "ar m" does.
// With CompatGNU each goes there in turn, in the order given; with
// CompatLLVM they go as one block in archive order, as llvm-ar moves
// them. A name that matches no member is an error, and nothing moves.
func (a *Archive) Move(names ...string) error {
	for _, file := range names {
		i := -1
		for j := range a.entries {
			if a.matches(file, a.entries[j].Name) {
				i = j
				break
			}
		}
		if i < 0 {
			return fmt.Errorf("ar: %s: no entry %s in archive", a.name, file)
		}
		if a.opts.Compat == CompatLLVM {
			continue
		}
		e, o := a.entries[i], a.orig[i]
		a.entries = removeAt(a.entries, i)
		a.orig = removeAt(a.orig, i)
		at := a.position(a.entries, len(a.entries))
		a.entries = insertAt(a.entries, at, e)
		a.orig = insertAt(a.orig, at, o)
		a.verbosef("m - %s\n", file)
	}
	if a.opts.Compat == CompatLLVM {
		a.moveBlock(names)
	}
	return nil
}

// moveBlock is m as llvm-ar does it: the named members leave their places
// and go, in archive order, as one block to the end or to RelPos.
func (a *Archive) moveBlock(names []string) {
	var moved, keep []Entry
	for _, e := range a.entries {
		hit := false
		for _, file := range names {
			if a.matches(file, e.Name) {
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
	at := a.position(keep, len(keep))
	a.entries = append(append(append([]Entry{}, keep[:at]...), moved...), keep[at:]...)
	a.orig = make([]bool, len(a.entries))
	for i := range a.orig {
		a.orig[i] = true
	}
}

// Select returns the indexes in Reader().Members() of the members the
// names pick, as "ar t", "ar p" and "ar x" pick them: every member when
// no name is given; else, for each name in turn, every member of that
// name (only the Count-th, with Count). Names that pick nothing are
// listed in the error, after the indexes of those that did.
func (a *Archive) Select(names ...string) ([]int, error) {
	var ms []Member
	if r := a.Reader(); r != nil {
		ms = r.Members()
	}
	var sel []int
	if len(names) == 0 {
		for i := range ms {
			sel = append(sel, i)
		}
		return sel, nil
	}
	var missing []string
	for _, file := range names {
		n, found := 0, false
		for i := range ms {
			if !a.matches(file, ms[i].Name) {
				continue
			}
			n++
			if a.opts.Count > 0 && n != a.opts.Count {
				continue
			}
			found = true
			sel = append(sel, i)
		}
		if !found {
			missing = append(missing, file)
		}
	}
	if len(missing) > 0 {
		return sel, fmt.Errorf("ar: %s: no entry %s in archive", a.name, strings.Join(missing, ", "))
	}
	return sel, nil
}

// Extract writes the members the names select (see Select) as files in
// Dir, as "ar x" does: each file takes the member's permission bits and,
// with KeepDates, its date. A member whose name is not a valid fs.FS path,
// or holds '/' without FullPath, is refused. The members of a thin archive
// are copied from the files they name (see Reader.Section) to their base
// names, or with FullPath to their paths; GNU ar 2.40 and llvm-ar 14
// refuse x on thin archives altogether, and here only the one case that
// would lose data is refused: a member file that is itself the output
// file, which truncating would empty. The members are written in order up
// to the first error.
func (a *Archive) Extract(names ...string) error {
	r := a.Reader()
	if r == nil {
		return fmt.Errorf("ar: %s: %w", a.name, fs.ErrNotExist)
	}
	sel, selErr := a.Select(names...)
	ms := r.Members()
	for _, i := range sel {
		if err := a.extractOne(r, i, &ms[i]); err != nil {
			return err
		}
	}
	return selErr
}

func (a *Archive) extractOne(r *Reader, i int, m *Member) error {
	name := m.Name
	if r.Thin() && !a.opts.FullPath {
		name = path.Base(name)
	}
	if !fs.ValidPath(name) || strings.Contains(name, "/") && !a.opts.FullPath {
		return fmt.Errorf("ar: %s: member %q: illegal output pathname", a.name, name)
	}
	a.verbosef("x - %s\n", name)
	sr, err := r.Section(i)
	if err != nil {
		return a.wrap(err)
	}
	out := a.abs(filepath.FromSlash(name))
	if r.Thin() && r.isThinFile(i, out) {
		return fmt.Errorf("ar: %s: thin member %s is the file %s it would be extracted to", a.name, m.Name, name)
	}
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
	if a.opts.KeepDates {
		if err := os.Chtimes(out, m.ModTime, m.ModTime); err != nil {
			return fmt.Errorf("ar: %s: %w", name, err)
		}
	}
	return nil
}

// Commit lays the members out with the EditOptions' Options and writes
// them, with the symbol index unless Options.NoIndex, into a new file
// beside the archive, renamed over it only when complete, so the archive
// holds exactly the new bytes; the file keeps the old archive's permission
// bits (0644 for a new one). A symbolic link is followed and the file it
// leads to is replaced (or made), as bcache.ResolveTarget says. Committing an
// unchanged Archive rewrites the index, as "ar s" and ranlib do. The
// Archive stays open; call Close after Commit.
func (a *Archive) Commit() error {
	o := a.opts.Options
	if o.Thin && o.Format == FormatBSD {
		return fmt.Errorf("ar: %s: %w", a.name, ErrThinBSD)
	}
	if a.opts.FileMetadata && o.IndexTime.IsZero() {
		o.IndexTime = time.Now()
	}
	p, err := NewPlan(a.entries, &o)
	if err != nil {
		return a.wrap(err)
	}
	// ModeAuto: bcache takes FIXTUREGEN_CACHE, else the mapping, whatever
	// the members' sizes: bcache's WriteAt and CopyFrom write with pwrite
	// in mmap mode too, so the mapping is as fast for large members
	// (BENCHMARKS.md).
	im, err := bcache.Create(a.path, p.Size(), &bcache.Options{Perm: a.perm, Progress: a.opts.Progress})
	if err != nil {
		return a.imageErr(err)
	}
	defer im.Abort()
	if err := im.Guard(func() error { return p.WriteAtTo(im) }); err != nil {
		return a.wrap(err)
	}
	if err := im.Commit(); err != nil {
		return a.imageErr(err)
	}
	return nil
}

// imageErr words an error of creating or installing the archive file:
// a file operation on it names the archive as the caller gave it
// ("ar: create out/x.a: no such file or directory"), anything else follows
// "ar: NAME: ".
func (a *Archive) imageErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == a.path {
		return fmt.Errorf("ar: %w", &fs.PathError{Op: pe.Op, Path: a.name, Err: pe.Err})
	}
	return fmt.Errorf("ar: %s: %w", a.name, err)
}
