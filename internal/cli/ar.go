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
		Usage:   "ar [-]{" + arcmd.Operations + "}[" + sortedLetters(arcmd.Modifiers+"s") + "] [--format=gnu|bsd] [--compat=gnu|llvm] [--thin] [relpos] [count] archive [member ...]",
		Summary: "create, modify and extract from archives, as ar(1) does",
		Flags:   arFlags,
		Help: `The key is one operation and its modifiers, with or without a '-'; a,
b and i take the member relpos, N the count, before the archive.
Editing writes a new file beside the archive and renames it over the
archive only when complete.`,
		Examples: arExamples,
		Run:      runAr,
	})
	register(command{
		Name:    "ranlib",
		Usage:   "ranlib [-DU] archive ...",
		Summary: "write the symbol index of archives, as ranlib(1) does",
		Run:     runRanlib,
	})
}

// arFlags lists the letters of an ar key, arcmd.Operations and
// arcmd.Modifiers, and arcmd.LongOptions, each said by arFlagTexts.
func arFlags() []flagGroup {
	letters := func(set string) []flagHelp {
		var list []flagHelp
		for _, c := range sortedLetters(set) {
			t := arFlagTexts[string(c)]
			f := string(c)
			if t.Arg != "" {
				f += " " + t.Arg
			}
			list = append(list, flagHelp{f, t.Text})
		}
		return list
	}
	return []flagGroup{
		{Title: "Operations, one in the key:", Flags: letters(arcmd.Operations)},
		{Title: "Modifiers, after it in the key:", Flags: letters(arcmd.Modifiers)},
		{Title: "Options, anywhere on the line:", Flags: getoptFlags("", arcmd.LongOptions, arFlagTexts)},
	}
}

// arFlagTexts says each letter of an ar key and each long option.
var arFlagTexts = map[string]flagText{
	"d": {"", "delete the members from the archive"},
	"m": {"", "move the members to the end, or to relpos"},
	"p": {"", "print the members' contents (all without members)"},
	"q": {"", "quick append: add the members at the end, without looking for them"},
	"r": {"", "insert the members, replacing those of the same name"},
	"s": {"", "alone, write the index only (as ranlib); with another operation, write the index too (the default)"},
	"t": {"", "list the members (with v, as ls -l does)"},
	"x": {"", "extract the members (all without members) into the working folder"},

	"a": {"relpos", "place the members after the member relpos"},
	"b": {"relpos", "place the members before the member relpos"},
	"c": {"", "do not say \"creating\" when the archive is new"},
	"D": {"", "deterministic: dates, uids and gids 0, mode 644 (the default)"},
	"f": {"", "truncate names to 15 bytes"},
	"i": {"relpos", "as b"},
	"N": {"count", "the count-th member of that name"},
	"O": {"", "list the members' offsets"},
	"o": {"", "extract with the stored dates"},
	"P": {"", "full path names"},
	"S": {"", "write no index"},
	"T": {"", "a thin archive, holding the members' paths, not their bytes"},
	"U": {"", "the members' real dates, ids and modes"},
	"u": {"", "replace only members older than the files"},
	"v": {"", "verbose: say what is done to each member"},

	"compat": {"=gnu|llvm", "llvm matches llvm-ar's bytes where they differ from GNU ar's (the default with --format=bsd)"},
	"format": {"=gnu|bsd", "the layout of a new archive: gnu (the default), or bsd as llvm-ar --format=bsd writes it"},
	"thin":   {"", "as T"},
}

// arExamples are the examples of "fixturegen help ar", each run by
// TestHelpExamplesRun in a folder holding a.o and b.o.
var arExamples = []example{
	{"ar rcs libx.a a.o b.o", "a new archive libx.a of a.o and b.o with its index, the same bytes on every run"},
	{"ar tv libx.a", "its members, as ls -l lists files"},
	{"ar x libx.a a.o", "a.o extracted from it into the working folder"},
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
	e.removeLeftovers(c.Program, c.Archive)
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
