package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"

	"github.com/fixturegen/fixturegen/catalog"
	"github.com/fixturegen/fixturegen/internal/tempfile"
)

func init() {
	register(command{
		Name:    "build",
		Usage:   "build [-C dir] [-j N] [-q] [-update] [-hash] [-force] [-clean] [name ...]",
		Summary: "build the fixture catalogue that a fixtures/manifest describes",
		Help:    buildHelp,
		Run:     runBuild,
	})
}

const buildHelp = `build runs every entry of the manifest (or only the named ones) and checks
each output against fixtures.sum, beside the manifest. With -update it
records the outputs' sizes and SHA-256 sums there instead; when there is
no fixtures.sum yet, build creates it. An output whose sum does not match
is not installed: the file at its path stays, and the mismatch is
explained by the inputs that changed since its last build and field by
field against that file (see "fixturegen diff").

The manifest is found in -C dir, or else in the fixtures folder of the
working directory or of the nearest parent, up to the module root (the
folder holding go.mod). It is plain text: '#' starts a comment, a line
ending in '\' continues on the next, and each entry reads

	NAME: COMMAND ARGS...

where COMMAND is a fixturegen command (makefs, ar, mkimg) run in the
manifest's folder, NAME is the output it writes, given among ARGS,
relative to that folder. ARGS are split as a shell would, with '...' and
"..." quotes.
SOURCE_DATE_EPOCH is unset for every entry.

Outputs depend only on what git keeps of the inputs, so that one
fixtures.sum holds in every clone: a makefs entry runs as if
--metadata=git were its first option (owners 0:0, files 0644 or 0755 by
the execute bit, directories 0755, no hard links; see "fixturegen help
makefs"), so its bytes are those of "fixturegen makefs --metadata=git
ARGS..." run by hand in the folder. A makefs entry needs -T, since git
sets every file's time at checkout, and an ar entry may not use U; an
entry that writes --metadata=host stores this host's owners and modes and
needs no -T, and its sum then holds only on this host.

An entry's inputs are every path its command line reads, as the command
parses it: makefs's sources, -F spec and the files its contents keywords
name, -T's file, -o bootstrap's file; ar's members (directories with
everything under them); mkimg's partition files and -b's boot code. An
mkimg entry names its disk with -o NAME, and may not have a partition
made by a command (TYPE:-CMD), whose bytes a catalogue cannot track. An entry whose command line, inputs (type, mode,
size, owner, hard links, modification time and, on Linux, change time),
output, recorded sum and fixturegen build are unchanged since its last
build is not rebuilt:
checking costs about one stat per input and output. -hash compares the
inputs' contents instead of their modification times (times still count
where the output holds them); -force rebuilds everything. What the last
build saw is kept in .fixturegen-state beside the manifest (do not commit
it). An entry that names another's output as an input runs after it; a
cycle is an error, and so is a source folder that holds an output or the
catalogue's own files.

Outputs are written under temporary names beside them and renamed into
place when complete; one build, update or clean of a catalogue runs at a
time (the others wait for its lock, .fixturegen-lock). An interrupted
build (SIGINT, SIGTERM, SIGHUP) removes its temporary files and exits with
status 128 plus the signal's number; the next build removes the
temporary files (.fixturegen-tmp-*) of a killed one and says so. -clean
removes the outputs (all, or the named ones), the build state and what
killed runs left, instead of building; fixtures.sum and the inputs stay.

-j N runs up to N entries at once (default: the number of CPUs); the
outputs do not depend on it. Each output's line is printed as it is
built. On a terminal, a build that takes more than a second shows its
progress on standard error, unless -q: the entries running, each with
its step and how far that is ("hashing big.img 1.1 GiB / 2.0 GiB
(55%)"), and how many are done (without escape sequences when
TERM=dumb). The last line says how many outputs were built, were up to
date and failed; -q prints only errors.

fixtures.sum holds one line per output, sorted: NAME SIZE sha256:HEX.
`

// Names of the catalogue's files, for the tests.
const (
	manifestName = catalog.ManifestName
	sumName      = catalog.SumName
	stateName    = catalog.StateName
)

// buildFlags are the options of build and verify.
type buildFlags struct {
	dir                        string
	jobs                       int
	quiet, update, hash, force bool
	clean                      bool
	names                      []string
}

// parseBuildFlags parses args with the options build and verify share (-C,
// -j, -q) added to fl, which holds the command's own, and takes the entry
// names that follow them.
func parseBuildFlags(fl *flag.FlagSet, o *buildFlags, args []string) error {
	fl.SetOutput(io.Discard)
	fl.StringVar(&o.dir, "C", "", "")
	fl.IntVar(&o.jobs, "j", runtime.GOMAXPROCS(0), "")
	fl.BoolVar(&o.quiet, "q", false, "")
	if err := fl.Parse(args); errors.Is(err, flag.ErrHelp) {
		return usagef("%s: help requested: run 'fixturegen help %s' for the options", fl.Name(), fl.Name())
	} else if err != nil {
		return usagef("%s: %v", fl.Name(), err)
	}
	if o.jobs < 1 {
		return usagef("%s: -j %d: want at least 1", fl.Name(), o.jobs)
	}
	o.names = fl.Args()
	return nil
}

// lastCheckCalls is the number of system calls the up-to-date checks of
// the last build made, for the benchmark.
var lastCheckCalls atomic.Int64

func runBuild(e *env, args []string) error {
	fl := flag.NewFlagSet("build", flag.ContinueOnError)
	var o buildFlags
	fl.BoolVar(&o.update, "update", false, "")
	fl.BoolVar(&o.hash, "hash", false, "")
	fl.BoolVar(&o.force, "force", false, "")
	fl.BoolVar(&o.clean, "clean", false, "")
	if err := parseBuildFlags(fl, &o, args); err != nil {
		return err
	}
	if o.clean && (o.update || o.force || o.hash) {
		return usagef("build: -clean does not go with -update, -force or -hash")
	}
	cat, err := loadCatalog(e, "build", o.dir)
	if err != nil {
		return err
	}
	ctx, stop := e.signalContext()
	defer stop()
	if o.clean {
		removed, err := cat.Clean(ctx, o.names)
		if err != nil {
			return interrupted(ctx, "build", err)
		}
		if !o.quiet {
			fmt.Fprintf(e.Stdout, "build: removed %d of %d outputs\n", removed, len(selected(cat, o.names)))
		}
		return nil
	}
	return runCatalog(ctx, e, cat, o, "build")
}

// selected returns the entries names selects (names are known to exist).
func selected(cat *catalog.Catalog, names []string) []catalog.Entry {
	sel, _ := cat.Select(names)
	return sel
}

// runCatalog runs Build or Verify with the command's reporter.
func runCatalog(ctx context.Context, e *env, cat *catalog.Catalog, o buildFlags, op string) error {
	rep := &catalog.TextReporter{Stdout: e.Stdout, Stderr: e.Stderr, Quiet: o.quiet, Getenv: e.getenv}
	opts := &catalog.Options{
		Runner: Runner(), Reporter: rep,
		Names: o.names, Jobs: o.jobs, Update: o.update, Hash: o.hash, Force: o.force,
		Getenv: e.getenv, UpdateCommand: updateCommand(e, o.dir),
	}
	run := cat.Build
	if op == "verify" {
		run = cat.Verify
	}
	res, err := run(ctx, opts)
	rep.Finish(res, err)
	if res != nil {
		lastCheckCalls.Store(res.CheckCalls)
		for _, n := range res.Extra {
			fmt.Fprintf(e.Stderr, "fixturegen: %s: %s: in %s but not in %s\n", op, n, sumName, manifestName)
		}
	}
	var me *catalog.ManifestError
	if errors.As(err, &me) && len(me.Problems) > 1 {
		// One line for each problem, then the count.
		for _, p := range me.Problems {
			fmt.Fprintf(e.Stderr, "fixturegen: %s: %s\n", op, p)
		}
		return fmt.Errorf("%s: %d problems with %s; nothing was built", op, len(me.Problems), manifestName)
	}
	if err != nil {
		return interrupted(ctx, op, err)
	}
	return nil
}

// loadCatalog finds and reads the manifest.
func loadCatalog(e *env, cmd, dirFlag string) (*catalog.Catalog, error) {
	var dir string
	if dirFlag != "" {
		dir = e.abs(dirFlag)
		if _, err := os.Stat(filepath.Join(dir, manifestName)); err != nil {
			return nil, fmt.Errorf("%s: -C %s: no %s there", cmd, dir, manifestName)
		}
	} else {
		var err error
		if dir, err = catalog.Find(e.abs(".")); err != nil {
			return nil, fmt.Errorf("%s: no fixtures/%s in %s or its parents up to the module root; use -C dir", cmd, manifestName, e.abs("."))
		}
	}
	cat, err := catalog.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", cmd, err)
	}
	return cat, nil
}

// signalError is the error of a run stopped by a signal: its exit status
// is 128 plus the signal's number, as a shell reports a process the signal
// killed.
type signalError struct {
	op  string
	sig os.Signal
}

func (s *signalError) Error() string { return fmt.Sprintf("%s: interrupted by %v", s.op, s.sig) }
func (s *signalError) ExitCode() int { return 128 + signalNumber(s.sig) }

// interrupted turns the error of a run whose context a signal cancelled
// into a signalError, and prefixes others with op. For a signal it also
// removes the temporary files that the commands still running in this
// process have made since the run removed its own, and lets them make no
// more before the process exits (tempfile.Stop).
func interrupted(ctx context.Context, op string, err error) error {
	if ctx.Err() != nil {
		if c, ok := context.Cause(ctx).(*signalCause); ok {
			tempfile.Stop()
			return &signalError{op: op, sig: c.sig}
		}
		return fmt.Errorf("%s: %w", op, err)
	}
	var ce *catalog.Error
	if errors.As(err, &ce) {
		return err
	}
	return fmt.Errorf("%s: %w", op, err)
}

// signalCause is the cause of a context a signal cancelled.
type signalCause struct{ sig os.Signal }

func (s *signalCause) Error() string { return "signal " + s.sig.String() }

// signalContext returns a context that SIGINT, SIGTERM or SIGHUP cancels,
// when e is the process's own environment; in-process runs (tests) get
// a context that only stop cancels.
func (e *env) signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	if !e.process {
		return ctx, func() { cancel(nil) }
	}
	c := make(chan os.Signal, 1)
	signal.Notify(c, stopSignals...)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-c:
			cancel(&signalCause{sig})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(c)
		close(done)
		cancel(nil)
	}
}

// updateCommand says how the user runs build -update, for hints: the
// go command line that started fixturegen, when the parent process is
// "go tool fixturegen" or "go run PACKAGE", else the program's name.
func updateCommand(e *env, dir string) string {
	inv := "fixturegen"
	if e.process {
		inv = invocation()
	}
	s := inv + " build"
	if dir != "" {
		s += " -C " + quoteWord(dir)
	}
	return s + " -update"
}

// invocation returns the command line that ran this process, up to the
// program: "go tool fixturegen", "go run ./cmd/fixturegen", or the
// program's base name.
func invocation() string { return invocationOf(os.Args[0], parentArgs()) }

// invocationOf is invocation for the program arg0 started by the command
// line args (nil when unknown).
func invocationOf(arg0 string, args []string) string {
	name := filepath.Base(arg0)
	name = strings.TrimSuffix(name, ".exe")
	if !strings.HasPrefix(name, "fixturegen") {
		name = "fixturegen"
	}
	if len(args) < 3 || strings.TrimSuffix(filepath.Base(args[0]), ".exe") != "go" {
		return name
	}
	switch args[1] {
	case "tool":
		return "go tool " + args[2]
	case "run":
		for i := 2; i < len(args); i++ {
			if !strings.HasPrefix(args[i], "-") {
				words := make([]string, 0, i+1)
				for _, a := range args[:i+1] {
					words = append(words, quoteWord(a))
				}
				words[0] = "go"
				return strings.Join(words, " ")
			}
		}
	}
	return name
}

// quoteWord quotes s for a shell when it needs it.
func quoteWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`#&;|<>()*?[]{}~!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
