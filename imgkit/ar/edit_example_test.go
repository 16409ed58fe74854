package ar_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/fixturegen/fixturegen/imgkit/ar"
)

// This example edits an archive as a sequence of GNU ar commands would:
// "ar rcsD libdemo.a one.txt two.txt", "ar rbD one.txt libdemo.a
// three.txt", "ar dD libdemo.a two.txt", then "ar t libdemo.a".
func ExampleOpenArchive() {
	dir, err := os.MkdirTemp("", "ar-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for _, name := range []string{"one.txt", "two.txt", "three.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name+"\n"), 0o644); err != nil {
			log.Fatal(err)
		}
	}

	edit := func(opts *ar.EditOptions, do func(a *ar.Archive) error) {
		opts.Dir = dir
		opts.Verbose = os.Stdout
		a, err := ar.OpenArchive("libdemo.a", opts)
		if err != nil {
			log.Fatal(err)
		}
		defer a.Close()
		if err := do(a); err != nil {
			log.Fatal(err)
		}
		if err := a.Commit(); err != nil {
			log.Fatal(err)
		}
	}
	edit(&ar.EditOptions{}, func(a *ar.Archive) error { return a.Replace("one.txt", "two.txt") })
	edit(&ar.EditOptions{RelPos: "one.txt"}, func(a *ar.Archive) error { return a.Replace("three.txt") })
	edit(&ar.EditOptions{}, func(a *ar.Archive) error { a.Delete("two.txt"); return nil })

	rc, err := ar.OpenReader(filepath.Join(dir, "libdemo.a"))
	if err != nil {
		log.Fatal(err)
	}
	defer rc.Close()
	for _, m := range rc.Members() {
		fmt.Println(m.Name, m.Size)
	}
	// Output:
	// a - one.txt
	// a - two.txt
	// a - three.txt
	// d - two.txt
	// three.txt 10
	// one.txt 8
}
