package cli

import (
	"fmt"

	"github.com/fixturegen/fixturegen/imgkit/inspect"
)

func init() {
	register(command{
		Name:    "diff",
		Usage:   "diff [-q] file1 file2",
		Summary: "explain how two images or archives differ, field by field",
		Help: `diff compares two FAT images or ar archives by structure and prints what
differs in words: which file or structure (path), which field (by its
specification name, such as BPB_SecPerClus, DIR_WrtTime or "ar member
header date"), at which byte offset, and the old and new values. Bytes that
differ outside every parsed field, and files in no known format, are shown
as byte ranges; so are FFS images, which have no field description yet.
-q prints nothing and only sets the exit status.

The exit status is that of cmp(1): 0 when the files are identical, 1 when
they differ, 2 (or 1 until the command line reports exit codes) when one
cannot be read.`,
		Run: runDiff,
	})
}

// diffTrouble is an error of diff that is neither a usage error nor a
// difference: a file that cannot be read. Its ExitCode is 2, as cmp(1)'s.
type diffTrouble struct{ err error }

func (d *diffTrouble) Error() string { return d.err.Error() }
func (d *diffTrouble) Unwrap() error { return d.err }
func (d *diffTrouble) ExitCode() int { return 2 }

func runDiff(e *env, args []string) error {
	opts, rest, err := getopt("diff", args, "q")
	if err != nil {
		return err
	}
	quiet := len(opts) > 0
	if len(rest) != 2 {
		return usagef("diff: want two files")
	}
	a, sizeA, err := openImage(e, "diff", rest[0])
	if err != nil {
		return &diffTrouble{err}
	}
	defer a.Close()
	b, sizeB, err := openImage(e, "diff", rest[1])
	if err != nil {
		return &diffTrouble{err}
	}
	defer b.Close()
	rep, err := inspect.Diff(a, sizeA, b, sizeB)
	if err != nil {
		return &diffTrouble{fmt.Errorf("diff: %v", err)}
	}
	if rep.Same {
		return nil
	}
	if !quiet {
		if err := rep.Write(e.Stdout, rest[0], rest[1]); err != nil {
			return &diffTrouble{fmt.Errorf("diff: %v", err)}
		}
	}
	return fmt.Errorf("diff: %s and %s differ", rest[0], rest[1])
}
