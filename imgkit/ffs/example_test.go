package ffs_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"testing/fstest"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/ffs"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// A UFS2 image built in memory from an fstest.MapFS, with a fixed time so
// that the bytes are the same on every run, and one of its files read
// back.
func ExampleBuild() {
	src := fstest.MapFS{
		"etc/motd":       {Data: []byte("Welcome to the fixture.\n")},
		"bin/tool":       {Data: []byte("#!/bin/sh\necho ok\n"), Mode: 0o755},
		"var/log/.keep":  {},
		"home/README.md": {Data: []byte("# home\n")},
	}
	img, err := ffs.Build(fstree.FS(src), &ffs.Options{
		Version:   2,
		Timestamp: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC),
	})
	if err != nil {
		log.Fatal(err)
	}
	fsys, err := ffs.NewReader(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		log.Fatal(err)
	}
	motd, err := fs.ReadFile(fsys, "etc/motd")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("UFS%d, %d bytes\n", fsys.Version(), len(img))
	fmt.Print(string(motd))
	// Output:
	// UFS2, 262144 bytes
	// Welcome to the fixture.
}

// An image walked with fs.WalkDir, as any io/fs.FS is. The directories
// the MapFS makes up are 0755, as on disk (see fstree.FS), and the modes
// print as Go's fs.FileMode.String prints them ('L' for a link).
func ExampleOpen_walkDir() {
	src := fstest.MapFS{
		"a.txt":       {Data: []byte("a\n")},
		"dir/b.txt":   {Data: []byte("bb\n")},
		"dir/sub/c":   {Data: []byte("ccc\n"), Mode: 0o600},
		"dir/link":    {Data: []byte("b.txt"), Mode: fs.ModeSymlink | 0o777},
		"empty/.keep": {},
	}
	img, err := ffs.Build(fstree.FS(src), &ffs.Options{Timestamp: time.Unix(1700000000, 0)})
	if err != nil {
		log.Fatal(err)
	}
	fsys, err := ffs.NewReader(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		log.Fatal(err)
	}
	err = fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Printf("%v %4d %s\n", info.Mode(), info.Size(), path)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// drwxr-xr-x  512 .
	// -rw-r--r--    2 a.txt
	// drwxr-xr-x  512 dir
	// -rw-r--r--    3 dir/b.txt
	// Lrwxrwxrwx    5 dir/link
	// drwxr-xr-x  512 dir/sub
	// -rw-------    4 dir/sub/c
	// drwxr-xr-x  512 empty
	// -rw-r--r--    0 empty/.keep
}

// An image file made from a host directory, with the times clamped as
// SOURCE_DATE_EPOCH asks, and opened again with OpenReader.
func ExampleWriteFile() {
	dir, err := os.MkdirTemp("", "ffs-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(filepath.Join(src, "docs"), 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "docs", "hello.txt"), []byte("hello\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	img := filepath.Join(dir, "ufs1.img")
	err = ffs.WriteFile(img, fstree.Dir(src), &ffs.Options{
		Size:       1 << 20,
		Timestamp:  time.Unix(1700000000, 0),
		ClampTimes: true,
	})
	if err != nil {
		log.Fatal(err)
	}
	rc, err := ffs.OpenReader(img)
	if err != nil {
		log.Fatal(err)
	}
	defer rc.Close()
	info, err := fs.Stat(rc, "docs/hello.txt")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(info.Name(), info.Size(), info.ModTime().UTC())
	// Output:
	// hello.txt 6 2023-11-14 22:13:20 +0000 UTC
}
