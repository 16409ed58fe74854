package catalog_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/fixturegen/fixturegen/catalog"
	"github.com/fixturegen/fixturegen/fixturetest"
)

// Build a catalogue from Go with fixturegen's own makefs and ar: the first
// build creates fixtures.sum, the second finds everything up to date.
func ExampleCatalog_Build() {
	dir, err := os.MkdirTemp("", "catalog-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Mkdir(filepath.Join(dir, "src"), 0o755)
	os.WriteFile(filepath.Join(dir, "src", "hello.txt"), []byte("hello\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "manifest"), []byte("lib.a: ar rcs lib.a src/hello.txt\n"), 0o644)

	cat, err := catalog.Load(dir)
	if err != nil {
		log.Fatal(err)
	}
	rep := &catalog.TextReporter{Stdout: os.Stdout, Stderr: os.Stdout}
	opts := &catalog.Options{Runner: fixturetest.Runner(), Reporter: rep, UpdateCommand: "go generate"}
	for range 2 {
		res, err := cat.Build(context.Background(), opts)
		rep.Finish(res, err)
		if err != nil {
			fmt.Println(err)
		}
	}
	// Output:
	// lib.a 74 sha256:4c0ac3fb3da977800a27160b3ad1afaee4ea8fbb97834715281d3be911e32c5a
	// build: 1 built, 0 up to date, 0 failed; created fixtures.sum with 1 sums (commit it; after a deliberate change, run go generate to record new sums)
	// build: 0 built, 1 up to date, 0 failed
}
