package cli

import (
	"errors"

	"github.com/fixturegen/fixturegen/imgkit/arcmd"
)

// The ar and ranlib commands accept the command lines of GNU ar(1) and
// ranlib(1). The library package imgkit/arcmd parses and runs them; this
// file gives them the command's environment, shows the progress of a
// write, and says their usage errors as the command's.

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

func runAr(e *env, args []string) error {
	c, err := parseArArgs(e, args)
	if err != nil {
		return err
	}
	defer e.removeTempsOnSignal("ar")()
	return e.runArCommand(c)
}

// parseArArgs parses the ar command line with arcmd.Parse in the
// command's environment; syntax errors are usage errors.
func parseArArgs(e *env, args []string) (*arcmd.Command, error) {
	c, err := arcmd.Parse(args, e.Dir, e.getenv)
	return c, fromArcmd(err)
}

// runArCommand runs c, with the progress of a write shown as
// "ar: ARCHIVE: writing ... / ... (N%)" on a terminal.
func (e *env) runArCommand(c *arcmd.Command) error {
	if !c.Writes() {
		return c.Run(e.Stdout, e.Stderr)
	}
	c.Progress = e.progressMeter()
	return e.showProgress(c.Program, c.Archive, c.Progress, c.Run)
}

// runRanlib writes the index of each archive, as "ar s" does.
func runRanlib(e *env, args []string) error {
	cmds, err := arcmd.ParseRanlib(args, e.Dir, e.getenv)
	if err != nil {
		return fromArcmd(err)
	}
	for _, c := range cmds {
		if err := e.runArCommand(c); err != nil {
			return err
		}
	}
	return nil
}

// fromArcmd turns an *arcmd.UsageError in err into the command's usage
// error, with the same message; other errors are returned as they are.
func fromArcmd(err error) error {
	if ue := (*arcmd.UsageError)(nil); errors.As(err, &ue) {
		return usagef("%s", err.Error())
	}
	return err
}
