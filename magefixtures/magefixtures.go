// Package magefixtures gives a magefile the targets of a fixture catalogue
// (a fixtures/manifest with its fixtures.sum; see "fixturegen help build").
// Import it with one line in your magefile:
//
//	//go:build mage
//
//	package main
//
//	import (
//		// mage:import
//		_ "github.com/fixturegen/fixturegen/magefixtures"
//	)
//
// and "mage -l" lists fixtures, fixturesVerify, fixturesUpdate and
// fixturesClean. Give the import a name instead of _ to have them in a
// namespace ("mage fx:fixtures" for the name fx).
//
// The targets run the catalogue engine (package catalog) in the mage
// process, with fixturegen's makefs, ar and mkimg: no go run, no separate
// fixturegen binary. They find the catalogue as fixturegen does, in
// ./fixtures or in the fixtures folder of the nearest parent up to the
// module root, unless Settings.Dir says where it is. Settings (set in an
// init function) and the FIXTUREGEN_FLAGS variable (for one run) choose
// the folder, the jobs and the entries, as fixturegen build's flags do.
// Interrupting mage (Ctrl-C, which mage turns into a cancelled context) or
// sending it SIGTERM or SIGHUP cancels the run, which removes its
// temporary files.
package magefixtures

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/fixturegen/fixturegen/catalog"
	"github.com/fixturegen/fixturegen/internal/cli"
)

// Config holds the settings of the targets, as Go values.
type Config struct {
	// Dir is the catalogue folder, relative to the directory mage runs
	// in; empty finds fixtures/ as fixturegen does (-C).
	Dir string
	// Jobs is how many entries run at once; 0 means the number of CPUs
	// (-j).
	Jobs int
	// Hash compares the inputs' contents instead of their times (-hash).
	Hash bool
	// Force rebuilds every entry (-force).
	Force bool
	// Quiet prints only errors (-q).
	Quiet bool
	// Names selects entries by output name; empty means all.
	Names []string
}

// Settings are passed to every target. A magefile may change them in an
// init function, for example Settings.Dir = "testdata/fixtures".
var Settings Config

// EnvFlags names the environment variable that overrides Settings for one
// run: its value is split into words as a shell splits them (quotes and
// backslashes, no expansion) and read as fixturegen build's flags -C, -j,
// -q, -hash and -force, followed by entry names, which replace
// Settings.Names. For example
//
//	FIXTUREGEN_FLAGS="-C 'test data/fixtures' -hash" mage fixtures
//
// An empty EnvFlags reads no variable.
var EnvFlags = "FIXTUREGEN_FLAGS"

// UpdateCommand is how the hints in messages say to record new sums.
var UpdateCommand = "mage fixturesUpdate"

// Fixtures builds the fixture catalogue (fixtures/manifest) and checks every output against fixtures.sum.
//
// Entries whose command line and inputs have not changed since their last
// build are not rebuilt; a first build creates fixtures.sum. It does what
// "fixturegen build" does.
func Fixtures(ctx context.Context) error { return build(ctx, "build", false) }

// FixturesVerify rebuilds every fixture in a temporary directory and checks it against fixtures.sum, for CI.
//
// It does what "fixturegen verify" does, and writes nothing into the
// catalogue.
func FixturesVerify(ctx context.Context) error { return build(ctx, "verify", false) }

// FixturesUpdate builds the fixture catalogue and records the outputs' sizes and SHA-256 in fixtures.sum.
//
// Run it after a deliberate change to an entry or an input, and commit
// fixtures.sum. It does what "fixturegen build -update" does.
func FixturesUpdate(ctx context.Context) error { return build(ctx, "build", true) }

// FixturesClean removes the catalogue's outputs, its build state and what killed runs left, so that the next build starts afresh.
//
// It does what "fixturegen build -clean" does; fixtures.sum and the inputs
// stay.
func FixturesClean(ctx context.Context) error {
	cfg, err := settings()
	if err != nil {
		return err
	}
	cat, err := load(cfg)
	if err != nil {
		return err
	}
	removed, err := cat.Clean(ctx, cfg.Names)
	if err != nil {
		return fmt.Errorf("build: %w", err)
	}
	if !cfg.Quiet {
		sel, _ := cat.Select(cfg.Names)
		fmt.Printf("build: removed %d of %d outputs\n", removed, len(sel))
	}
	return nil
}

// settings returns Settings with the environment's override applied.
func settings() (Config, error) {
	cfg := Settings
	cfg.Names = append([]string(nil), cfg.Names...)
	if EnvFlags == "" {
		return cfg, nil
	}
	v := os.Getenv(EnvFlags)
	if v == "" {
		return cfg, nil
	}
	words, err := catalog.SplitWords(v)
	if err != nil {
		return cfg, fmt.Errorf("magefixtures: $%s: %v", EnvFlags, err)
	}
	fl := flag.NewFlagSet(EnvFlags, flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	fl.StringVar(&cfg.Dir, "C", cfg.Dir, "")
	fl.IntVar(&cfg.Jobs, "j", cfg.Jobs, "")
	fl.BoolVar(&cfg.Quiet, "q", cfg.Quiet, "")
	fl.BoolVar(&cfg.Hash, "hash", cfg.Hash, "")
	fl.BoolVar(&cfg.Force, "force", cfg.Force, "")
	if err := fl.Parse(words); err != nil {
		return cfg, fmt.Errorf("magefixtures: $%s: %v", EnvFlags, err)
	}
	if cfg.Jobs < 0 {
		return cfg, fmt.Errorf("magefixtures: $%s: -j %d: want at least 1", EnvFlags, cfg.Jobs)
	}
	if fl.NArg() > 0 {
		cfg.Names = fl.Args()
	}
	return cfg, nil
}

// load finds and reads the catalogue.
func load(cfg Config) (*catalog.Catalog, error) {
	dir := cfg.Dir
	if dir == "" {
		var err error
		if dir, err = catalog.Find("."); err != nil {
			return nil, fmt.Errorf("magefixtures: %v; set magefixtures.Settings.Dir", err)
		}
	}
	cat, err := catalog.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("magefixtures: %v", err)
	}
	return cat, nil
}

// build runs Build (or Verify) with fixturegen's runner and reporter.
// Mage cancels ctx on SIGINT; SIGTERM and SIGHUP cancel it too, so that
// the run removes its temporary files.
func build(ctx context.Context, op string, update bool) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	cfg, err := settings()
	if err != nil {
		return err
	}
	cat, err := load(cfg)
	if err != nil {
		return err
	}
	rep := &catalog.TextReporter{Stdout: os.Stdout, Stderr: os.Stderr, Quiet: cfg.Quiet}
	opts := &catalog.Options{
		Runner: cli.Runner(), Reporter: rep,
		Names: cfg.Names, Jobs: cfg.Jobs, Update: update, Hash: cfg.Hash, Force: cfg.Force,
		Getenv: os.Getenv, UpdateCommand: UpdateCommand,
	}
	run := cat.Build
	if op == "verify" {
		run = cat.Verify
	}
	res, err := run(ctx, opts)
	rep.Finish(res, err)
	if res != nil {
		for _, n := range res.Extra {
			fmt.Fprintf(os.Stderr, "fixturegen: %s: %s: in %s but not in %s\n", op, n, catalog.SumName, catalog.ManifestName)
		}
	}
	if err != nil {
		if _, ok := err.(*catalog.Error); ok {
			return err
		}
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}
