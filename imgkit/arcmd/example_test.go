package arcmd_test

import (
	"log"
	"os"
	"path/filepath"

	"github.com/fixturegen/fixturegen/imgkit/arcmd"
)

// A Go program runs ar command lines in-process: Parse reads each with
// relative paths under a working directory and an environment of its
// own, and Run creates the archive, then lists it.
func Example() {
	dir, err := os.MkdirTemp("", "arcmd-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for _, f := range []string{"hello.txt", "world.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(f+"\n"), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	noEnv := func(string) string { return "" }
	for _, line := range [][]string{
		{"rc", "lib.a", "hello.txt", "world.txt"},
		{"tv", "lib.a"},
	} {
		c, err := arcmd.Parse(line, dir, noEnv)
		if err != nil {
			log.Fatal(err)
		}
		if err := c.Run(os.Stdout, os.Stderr); err != nil {
			log.Fatal(err)
		}
	}
	// Output:
	// rw-r--r-- 0/0     10 Jan  1 00:00 1970 hello.txt
	// rw-r--r-- 0/0     10 Jan  1 00:00 1970 world.txt
}
