package arcmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/ar"
	"github.com/fixturegen/fixturegen/imgkit/inspect"
)

// Run executes the command as ar does: t lists the members to stdout, p
// prints their data there, x extracts them into Dir, and the other
// operations edit the archive, which is written beside itself and renamed
// over it only when complete. "creating" (r or q without c) goes to
// stderr, and what v says to stdout. Either writer may be nil to discard
// what would go there.
func (c *Command) Run(stdout, stderr io.Writer) error {
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	return c.reword(c.run(stdout, stderr))
}

func (c *Command) run(stdout, stderr io.Writer) error {
	o, sym64Err := c.editOptions(stdout)
	a, err := ar.OpenArchive(c.Archive, o)
	if err != nil {
		return err
	}
	defer a.Close()
	if !a.Exists() {
		switch c.Op {
		case 'r', 'q':
			if !c.Create {
				fmt.Fprintf(stderr, "ar: creating %s\n", c.Archive)
			}
		default:
			return fmt.Errorf("ar: %s: no such file or directory", c.Archive)
		}
	}
	switch c.Op {
	case 't':
		return c.list(stdout, a)
	case 'p':
		return c.print(stdout, a)
	case 'x':
		return a.Extract(c.Members...)
	case 'd':
		a.Delete(c.Members...)
	case 'm':
		err = a.Move(c.Members...)
	case 'r':
		err = a.Replace(c.Members...)
	case 'q':
		err = a.Append(c.Members...)
	}
	if err != nil {
		return err
	}
	if sym64Err != nil {
		return sym64Err
	}
	return c.commit(a)
}

// editOptions are the library's options for the command line, with v's
// lines going to stdout. A bad FIXTUREGEN_AR_SYM64_THRESHOLD is returned
// as an error for Run to give only when it writes the archive.
func (c *Command) editOptions(stdout io.Writer) (*ar.EditOptions, error) {
	o := &ar.EditOptions{
		Options:      ar.Options{Format: c.Format, Compat: c.Compat, Thin: c.Thin, NoIndex: c.NoIndex},
		Dir:          c.Dir,
		RelPos:       c.RelPos,
		After:        c.After,
		FullPath:     c.FullPath,
		Truncate:     c.Truncate,
		Update:       c.Update,
		FileMetadata: c.FileMetadata,
		KeepDates:    c.KeepDates,
		KeepFormat:   !c.FormatSet,
		Progress:     c.Progress,
	}
	switch c.Op {
	case 'd':
		o.Count = c.Count
	case 't', 'p', 'x':
		if c.Counted {
			o.Count = c.Count
		}
	}
	if c.Verbose {
		o.Verbose = stdout
	}
	var err error
	if v := c.getenv("FIXTUREGEN_AR_SYM64_THRESHOLD"); v != "" {
		n, perr := strconv.ParseInt(v, 10, 64)
		if perr != nil || n <= 0 {
			err = fmt.Errorf("ar: FIXTUREGEN_AR_SYM64_THRESHOLD=%s: not a positive number", v)
		} else {
			o.Sym64Threshold = n
		}
	}
	return o, err
}

// getenv reads the environment variable key through c.Getenv, or the
// process's environment when that is nil.
func (c *Command) getenv(key string) string {
	if c.Getenv == nil {
		return os.Getenv(key)
	}
	return c.Getenv(key)
}

// selected calls fn for the members the command line names (all when none
// is named), and reports the names not found.
func (c *Command) selected(a *ar.Archive, fn func(i int, m *ar.Member) error) error {
	sel, selErr := a.Select(c.Members...)
	ms := a.Reader().Members()
	for _, i := range sel {
		if err := fn(i, &ms[i]); err != nil {
			return err
		}
	}
	return selErr
}

// list writes the t listing: names, in the long form with v, with data
// offsets with O.
func (c *Command) list(w io.Writer, a *ar.Archive) error {
	return c.selected(a, func(i int, m *ar.Member) error {
		line := m.Name
		if c.Verbose {
			line = fmt.Sprintf("%s %d/%d %6d %s %s", inspect.PermString(uint32(m.Mode)), m.Uid, m.Gid, m.Size,
				m.ModTime.UTC().Format("Jan _2 15:04 2006"), m.Name)
		}
		if c.Offsets && m.DataOffset >= 0 {
			line += fmt.Sprintf(" 0x%x", m.DataOffset)
		}
		_, err := fmt.Fprintln(w, line)
		return err
	})
}

// print writes the data of the selected members (p), each after a header
// with v.
func (c *Command) print(w io.Writer, a *ar.Archive) error {
	return c.selected(a, func(i int, m *ar.Member) error {
		if c.Verbose {
			fmt.Fprintf(w, "\n<%s>\n\n", m.Name)
		}
		// A thin member's data is its file beside the archive, which
		// may be missing or stale (ar.ErrThinMember).
		sr, err := a.Reader().Section(i)
		if err != nil {
			return &archiveError{archive: c.Archive, err: err}
		}
		_, err = io.Copy(w, sr)
		return err
	})
}

// commit writes the edited archive, saying in the command's words why a
// thin BSD archive cannot be.
func (c *Command) commit(a *ar.Archive) error {
	err := a.Commit()
	if errors.Is(err, ar.ErrThinBSD) {
		return fmt.Errorf("ar: %s: only the gnu format has a thin mode (T, --thin with --format=bsd)", c.Archive)
	}
	return err
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

// reword gives err the prefix of c.Program in place of "ar: ", so that a
// Command of ParseRanlib says "ranlib: ...".
func (c *Command) reword(err error) error {
	if err == nil || c.Program == "" || c.Program == "ar" {
		return err
	}
	return &programError{program: c.Program, err: err}
}

// programError is an error of ar worded as the error of another program.
type programError struct {
	program string
	err     error
}

func (e *programError) Error() string {
	return e.program + ": " + strings.TrimPrefix(e.err.Error(), "ar: ")
}

func (e *programError) Unwrap() error { return e.err }
