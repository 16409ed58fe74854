package cd9660_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"testing/fstest"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/cd9660"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// Build makes an ISO 9660 image in memory from an fstest.MapFS, with Rock
// Ridge for POSIX names and modes; with a fixed Timestamp it is the same
// bytes on every run. NewReader reads it back as an fs.FS.
func ExampleBuild() {
	fsys := fstest.MapFS{
		"hello.txt":           {Data: []byte("Hello, ISO!\n"), Mode: 0o644},
		"docs/a long name.md": {Data: []byte("# Rock Ridge keeps long names\n"), Mode: 0o644},
		"bin/run.sh":          {Data: []byte("#!/bin/sh\n"), Mode: 0o755},
	}
	opts := &cd9660.Options{
		Label:     "FIXTURE",
		RockRidge: true,
		Timestamp: time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC),
	}
	img, err := cd9660.Build(fstree.FS(fsys), opts)
	if err != nil {
		log.Fatal(err)
	}

	vol, err := cd9660.NewReader(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		log.Fatal(err)
	}
	b, err := fs.ReadFile(vol, "docs/a long name.md")
	if err != nil {
		log.Fatal(err)
	}
	fi, err := fs.Stat(vol, "bin/run.sh")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d bytes, volume %s, Rock Ridge %v\n", len(img), vol.VolumeIdentifier(), vol.HasRockRidge())
	fmt.Printf("%s", b)
	fmt.Println(fi.Name(), fi.Size(), fi.Mode(), fi.ModTime())
	// Output:
	// 362496 bytes, volume FIXTURE, Rock Ridge true
	// # Rock Ridge keeps long names
	// run.sh 10 -rwxr-xr-x 2024-05-06 07:08:09 +0000 UTC
}

// WriteFile writes an image file from a host directory; OpenReader opens
// it again. Without Rock Ridge the names are ISO 9660's own, in upper
// case (the reader drops the ";1" version).
func ExampleWriteFile() {
	dir, err := os.MkdirTemp("", "cd9660-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(filepath.Join(src, "sub"), 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "sub", "data.bin"), []byte{1, 2, 3}, 0o644); err != nil {
		log.Fatal(err)
	}

	img := filepath.Join(dir, "cd.iso")
	opts := &cd9660.Options{Timestamp: time.Unix(1700000000, 0)}
	if err := cd9660.WriteFile(img, fstree.Dir(src), opts); err != nil {
		log.Fatal(err)
	}

	rc, err := cd9660.OpenReader(img)
	if err != nil {
		log.Fatal(err)
	}
	defer rc.Close()
	err = fs.WalkDir(rc, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Println(p, fi.IsDir(), fi.Size())
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// . true 2048
	// SUB true 2048
	// SUB/DATA.BIN false 3
}
