package fixturetest

import (
	"github.com/fixturegen/fixturegen/catalog"
	"github.com/fixturegen/fixturegen/internal/cli"
)

// Runner returns the runner of fixturegen's catalogue commands, for
// catalog.Options.Runner: it runs a manifest's makefs, ar and mkimg command
// lines in-process, as "fixturegen build" does (makefs lines as if
// --metadata=git came first; see package catalog), and plans their inputs
// with the commands' own parsers. With it a test builds or verifies a
// catalogue without the fixturegen program, and gets the same bytes:
//
//	cat, err := catalog.Load("testdata/fixtures")
//	...
//	_, err = cat.Verify(ctx, &catalog.Options{Runner: fixturetest.Runner()})
func Runner() catalog.Runner { return cli.Runner() }
