package makefs_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/fixturegen/fixturegen/imgkit/makefs"
)

// A Go program runs a makefs command line in-process: Parse reads it with
// relative paths under a working directory and an environment of its
// own, and Run builds the image.
func Example() {
	dir, err := os.MkdirTemp("", "makefs-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "src", "hello.txt"), []byte("hello\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	noEnv := func(string) string { return "" }
	c, err := makefs.Parse([]string{"-t", "msdos", "-s", "1440k", "-T", "0", "floppy.img", "src"}, dir, noEnv)
	if err != nil {
		log.Fatal(err)
	}
	if err := c.Run(os.Stdout, os.Stderr); err != nil {
		log.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "floppy.img"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(c.Type, fi.Size())
	// Output: msdos 1474560
}
