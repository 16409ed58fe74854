package catalog

import (
	"context"
	"io"

	"github.com/fixturegen/fixturegen/imgkit/progress"
)

// A Runner runs the commands of a manifest and says what each command
// line reads. The fixturegen command supplies one that runs its makefs, ar
// and mkimg in-process and plans with their own argument parsers.
type Runner interface {
	// Plan parses the command line args (COMMAND and its arguments) as
	// the command would run in dir, and returns which argument names the
	// output and every file or directory it reads, wherever it sits: a
	// positional argument, an option's value, an attached value (-Fspec)
	// or a key of a value (-o bootstrap=boot.bin), and the files such an
	// input names in turn (an mtree spec's contents keywords). An error
	// is the one the command would fail with.
	Plan(dir string, args []string) (*Plan, error)
	// Run runs the command line c.Args in c.Dir. It should stop early,
	// when it can, once ctx is done.
	Run(ctx context.Context, c *Command) error
}

// Plan is what a Runner says of one command line.
type Plan struct {
	// Output is the index in the command line of the argument that names
	// the output; Build replaces it with a temporary name.
	Output int
	// Inputs are the paths the command reads.
	Inputs []Input
	// Times is set when the output holds the inputs' times, so that with
	// Options.Hash their modification times still count.
	Times bool
}

// Input is one path a command line reads.
type Input struct {
	// Path is the path as the command resolves it: relative to the
	// folder the command runs in, or absolute.
	Path string
	// Optional is set when the command reads the path only when it
	// exists (makefs -T takes a file's time, or else a number): then its
	// absence counts too.
	Optional bool
	// Follow is set when the command follows the path if it is a
	// symbolic link (stat rather than lstat).
	Follow bool
	// ModTime is set when the command reads the path's modification
	// time (makefs -T FILE), so that it counts with Options.Hash too.
	ModTime bool
	// Host is set for one of the host's own files that the command reads
	// wherever it runs (the user and group databases a spec's owner names
	// are looked up in): Verify, which refuses an input outside the
	// catalogue folder, lets it be, since it rebuilds on the same host.
	Host bool
}

// Command is one command line for Runner.Run.
type Command struct {
	Dir            string   // the folder to run in: relative paths resolve against it
	Args           []string // COMMAND and its arguments
	Stdout, Stderr io.Writer
	// Getenv returns the command's environment variables;
	// SOURCE_DATE_EPOCH is always "".
	Getenv func(string) string
	// Progress, when not nil, is where the command should tell how far
	// it is (makefs.Command.Progress, ar.EditOptions.Progress,
	// mkimg.Options.Progress): the step it is at and how far that step
	// is, and the bytes it writes into its output as it writes them
	// (progress.Meter.Add), so that the Reporter can show a long build's
	// progress (see ProgressReporter). A Runner may ignore it.
	Progress *progress.Meter
}
