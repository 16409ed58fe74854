package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/progress"
	getoptpkg "github.com/fixturegen/fixturegen/internal/getopt"
)

// env is everything a command may take from the process it runs in. Commands
// use it instead of the os package, so that they can run in-process under
// tests and the catalogue builder with their own directory, output streams
// and environment.
type env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Dir            string              // working directory; relative paths resolve against it
	Getenv         func(string) string // environment variables
	// process is set for the process's own environment (Main), whose
	// signals a build catches.
	process bool
	// progress, when not nil, is the catalogue's meter of how far a
	// command is (catalog.Command.Progress).
	progress *progress.Meter
}

// abs resolves path against the working directory e.Dir.
func (e *env) abs(path string) string {
	if filepath.IsAbs(path) || e.Dir == "" {
		return filepath.Clean(path)
	}
	return filepath.Join(e.Dir, path)
}

// getenv returns the environment variable key, or "" when e has no Getenv.
func (e *env) getenv(key string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(key)
}

// command is one subcommand of fixturegen.
type command struct {
	Name    string // as typed: "makefs"
	Usage   string // synopsis without the program name: "makefs [options] image directory..."
	Summary string // one line for the command list
	Help    string // optional longer description for "fixturegen help <name>"
	// More, when not nil, is the rest of Help, made when the help is
	// shown: text built from a package's tables, which every run of the
	// binary would otherwise build at its start.
	More func() string
	// Flags, when not nil, lists the flags for the help, one a line,
	// before Help; Examples follow Help.
	Flags    func() []flagGroup
	Examples []example
	Run      func(e *env, args []string) error

	pending bool // a stand-in until the real command registers
	hidden  bool // left out of the command list (commands for tests)
}

// commands holds the registered subcommands by name.
var commands = map[string]*command{}

// register adds a subcommand. It is called from init functions; registering
// a name twice is a programming error and panics at start-up.
func register(c command) {
	if c.Name == "" || c.Run == nil {
		panic("fixturegen: register: command without name or Run")
	}
	if old, dup := commands[c.Name]; dup {
		switch {
		case c.pending:
			return // the real command is already here
		case !old.pending:
			panic("fixturegen: register: command " + c.Name + " registered twice")
		}
	}
	commands[c.Name] = &c
}

// The ar command is announced before its format lands; ar.go replaces
// this stand-in by registering the real command.
func init() {
	register(command{
		Name:    "ar",
		Usage:   "ar -d|m|p|q|r|t|x[modifiers] archive [member ...]",
		Summary: "create and maintain archives, as ar(1) does (in progress)",
		pending: true,
		Run: func(e *env, args []string) error {
			return errors.New("ar: not supported yet: the ar format is in progress")
		},
	})
}

// sortedCommands returns the registered commands sorted by name.
func sortedCommands() []*command {
	list := make([]*command, 0, len(commands))
	for _, c := range commands {
		list = append(list, c)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	return list
}

// usageError is an error in the command line itself. It is printed as
// "fixturegen: <msg>" followed by the command's usage line, and the
// program exits with status 2.
type usageError struct {
	msg string
	cmd string // the command whose usage to print; filled in by run
}

func (u *usageError) Error() string { return u.msg }

// usagef returns a usageError with a formatted message.
func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// errUsage asks for the usage text without an error message: fixturegen run
// without a command.
var errUsage = errors.New("no command")

// run dispatches args (without the program name) to a command. A panic in a
// command is turned into an internal error rather than a stack trace.
func run(e *env, args []string) (err error) {
	if len(args) == 0 {
		return errUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		return runHelp(e, nil)
	case "-V", "--version":
		name = "version" // as most programs spell it
	}
	c, ok := commands[name]
	if !ok {
		if strings.HasPrefix(name, "-") {
			return usagef("unknown option %s", name)
		}
		return usagef("unknown command %q", name)
	}
	if len(args) == 2 {
		switch args[1] {
		case "-h", "-help", "--help":
			return runHelp(e, []string{name})
		}
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: internal error: %v", name, r)
		}
	}()
	err = c.Run(e, args[1:])
	var u *usageError
	if errors.As(err, &u) && u.cmd == "" {
		u.cmd = name
	}
	return err
}

// runMain runs the command line args and returns the exit status, having
// printed any error to e.Stderr.
func runMain(e *env, args []string) int {
	err := run(e, args)
	if err == nil {
		return 0
	}
	if err == errUsage {
		printUsage(e.Stderr)
		return 2
	}
	var u *usageError
	if errors.As(err, &u) {
		fmt.Fprintf(e.Stderr, "fixturegen: %s\n", oneLine(err.Error()))
		if c, ok := commands[u.cmd]; ok {
			fmt.Fprintf(e.Stderr, "usage: fixturegen %s\n", c.Usage)
		} else {
			fmt.Fprintf(e.Stderr, "usage: fixturegen <command> [arguments]\nRun 'fixturegen help' for the list of commands.\n")
		}
		return 2
	}
	fmt.Fprintf(e.Stderr, "fixturegen: %s\n", oneLine(err.Error()))
	// An error may choose its own exit status, as diff's trouble does
	// (status 2, as cmp(1) exits when a file cannot be read).
	var coded interface{ ExitCode() int }
	if errors.As(err, &coded) {
		return coded.ExitCode()
	}
	return 1
}

// oneLine keeps an error message on one line.
func oneLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return strings.ReplaceAll(s, "\n", "; ")
}

// getoptResult is one option parsed by getopt.
type getoptResult = getoptpkg.Option

// getopt parses args as BSD getopt(3) does with the option string spec
// (letters; a letter followed by ':' takes an argument), through the
// scanner makefs and mkimg share (internal/getopt). Options may be
// grouped ("-xZ"), an argument may be attached ("-s10m") or be the next
// word ("-s 10m"); parsing stops at "--" (which is dropped), at "-" and at
// the first word that does not start with '-'. Errors are usage errors
// prefixed with cmd.
func getopt(cmd string, args []string, spec string) (opts []getoptResult, rest []string, err error) {
	opts, rest, err = (&getoptpkg.Spec{Short: spec}).Parse(args)
	if err != nil {
		return nil, nil, usagef("%s: %v", cmd, err)
	}
	return opts, rest, nil
}
