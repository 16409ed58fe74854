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
// The targets run fixturegen through the go command, as Command says, in
// the directory mage runs in; fixturegen finds the catalogue in ./fixtures
// or in the fixtures folder of the nearest parent up to the module root.
// Add fixturegen to your module first:
//
//	go get -tool github.com/fixturegen/fixturegen/cmd/fixturegen
package magefixtures

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Command is the command line that runs fixturegen. The default builds it
// from the version your go.mod requires (go run caches the binary). A
// magefile may change it in an init function, for example to
// []string{"go", "tool", "fixturegen"}.
var Command = []string{"go", "run", "github.com/fixturegen/fixturegen/cmd/fixturegen"}

// Flags are added to every build, verify and clean, before any names:
// for example []string{"-C", "testdata/fixtures"} for a catalogue outside
// fixtures/, or []string{"-hash"}. The environment variable
// FIXTUREGEN_FLAGS, split at blanks, is added after them.
var Flags []string

// Fixtures builds the fixture catalogue (fixtures/manifest) and checks every output against fixtures.sum.
//
// Entries whose command line and inputs have not changed since their last
// build are not rebuilt. It runs "fixturegen build".
func Fixtures() error { return fixturegen("build") }

// FixturesVerify rebuilds every fixture in a temporary directory and checks it against fixtures.sum, for CI.
//
// It runs "fixturegen verify", which writes nothing into the catalogue.
func FixturesVerify() error { return fixturegen("verify") }

// FixturesUpdate builds the fixture catalogue and records the outputs' sizes and SHA-256 in fixtures.sum.
//
// Run it after a deliberate change to an entry or an input, and commit
// fixtures.sum. It runs "fixturegen build -update".
func FixturesUpdate() error { return fixturegen("build", "-update") }

// FixturesClean removes the catalogue's outputs and its build state, so that the next build starts afresh.
//
// It runs "fixturegen build -clean"; fixtures.sum and the inputs stay.
func FixturesClean() error { return fixturegen("build", "-clean") }

// fixturegen runs one fixturegen command with Flags and FIXTUREGEN_FLAGS,
// its output going to mage's.
func fixturegen(args ...string) error {
	if len(Command) == 0 {
		return fmt.Errorf("magefixtures: Command is empty")
	}
	line := append([]string(nil), Command[1:]...)
	line = append(line, args...)
	line = append(line, Flags...)
	line = append(line, strings.Fields(os.Getenv("FIXTUREGEN_FLAGS"))...)
	cmd := exec.Command(Command[0], line...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %v", strings.Join(Command, " "), strings.Join(line[len(Command)-1:], " "), err)
	}
	return nil
}
