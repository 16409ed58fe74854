package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

func init() {
	register(command{
		Name:    "version",
		Usage:   "version",
		Summary: "print the version of fixturegen and of Go",
		Run:     runVersion,
	})
}

// version returns the module version fixturegen was built from, as the go
// command recorded it, or "(devel)" when it was built from a work tree or
// without module information.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok || info.Main.Version == "" {
		return "(devel)"
	}
	return info.Main.Version
}

// runVersion prints "fixturegen VERSION GOVERSION OS/ARCH".
func runVersion(e *env, args []string) error {
	if len(args) != 0 {
		return usagef("version: takes no arguments")
	}
	_, err := fmt.Fprintf(e.Stdout, "fixturegen %s %s %s/%s\n", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return err
}
