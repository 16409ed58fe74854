package cli

import (
	"flag"
)

func init() {
	register(command{
		Name:    "verify",
		Usage:   "verify [-C dir] [-j N] [-q] [name ...]",
		Summary: "rebuild the fixture catalogue in a temporary directory and check fixtures.sum",
		Help: `verify copies the manifest's folder (its inputs, without the outputs,
the build state and temporary files) into a temporary directory, runs
every entry of the manifest there (or only the named ones) and compares
each output with its line in fixtures.sum. It never writes to the
manifest's folder. A mismatch is explained field by field against the
output already in the manifest's folder, when there is one (see
"fixturegen diff"). Every path an entry reads, wherever it sits in the
command line (-F spec, -o bootstrap=file, -T file), must live under the
manifest's folder. Files are copied through a fixed buffer, holes kept.
The manifest is found as build finds it; -j and -q are as for build; an
interrupted verify removes its copy and exits as build does.`,
		Run: runVerify,
	})
}

func runVerify(e *env, args []string) error {
	var o buildFlags
	if err := parseBuildFlags(flag.NewFlagSet("verify", flag.ContinueOnError), &o, args); err != nil {
		return err
	}
	cat, err := loadCatalog(e, "verify", o.dir)
	if err != nil {
		return err
	}
	ctx, stop := e.signalContext()
	defer stop()
	return runCatalog(ctx, e, cat, o, "verify")
}
