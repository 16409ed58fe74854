// Command fixturegen builds test fixtures — FAT and FFS file system images
// and ar archives — byte for byte as FreeBSD makefs(8) and ar(1) do, and
// reproducibly.
//
// Usage:
//
//	fixturegen <command> [arguments]
//
// The commands are makefs (a file system image from a directory tree, with
// the command line of makefs(8)), ar (an archive, with the command line of
// ar(1)), build (the fixture catalogue described by a fixtures/manifest),
// version and help. Run "fixturegen help <command>" for the details of one.
//
// An error prints one line "fixturegen: ..." on standard error and exits
// with status 1; a command line that cannot be understood exits with
// status 2 and prints the command's usage.
package main

import "os"

func main() {
	os.Exit(runMain(stdEnv(), os.Args[1:]))
}

// stdEnv returns the environment of the running process.
func stdEnv() *env {
	dir, err := os.Getwd()
	if err != nil {
		dir = "."
	}
	return &env{
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		Dir:    dir,
		Getenv: os.Getenv,
	}
}
