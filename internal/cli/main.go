// Package cli is the fixturegen command: it parses the command lines of
// makefs(8), ar(1) and the catalogue commands, calls the libraries under
// imgkit, and prints. cmd/fixturegen runs it as a program and fixturetest
// runs it inside testscript scenarios, so both behave the same.
package cli

import "os"

// Main runs fixturegen with the process's arguments, standard streams,
// working directory and environment, and returns its exit status: 0 on
// success, 1 after an error (printed as one line "fixturegen: ..." on
// standard error), 2 for a command line that cannot be parsed.
func Main() int {
	return runMain(stdEnv(), os.Args[1:])
}

// stdEnv returns the environment of the running process.
func stdEnv() *env {
	dir, err := os.Getwd()
	if err != nil {
		dir = "."
	}
	return &env{
		Stdin:   os.Stdin,
		Stdout:  os.Stdout,
		Stderr:  os.Stderr,
		Dir:     dir,
		Getenv:  os.Getenv,
		process: true,
	}
}
