package msdos_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"testing/fstest"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/msdos"
)

// Build makes an image in memory from an fstest.MapFS; with a fixed
// Timestamp it is the same bytes on every run. NewReader reads it back as an
// fs.FS.
func ExampleBuild() {
	fsys := fstest.MapFS{
		"hello.txt":           {Data: []byte("Hello, FAT!\n")},
		"docs/A long name.md": {Data: []byte("# Long names are kept\n")},
	}
	opts := &msdos.Options{
		VolumeLabel: "FIXTURE",
		Timestamp:   time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC),
	}
	img, err := msdos.Build(fstree.FS(fsys), opts)
	if err != nil {
		log.Fatal(err)
	}

	vol, err := msdos.NewReader(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		log.Fatal(err)
	}
	b, err := fs.ReadFile(vol, "docs/A long name.md")
	if err != nil {
		log.Fatal(err)
	}
	fi, err := fs.Stat(vol, "hello.txt")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d bytes, FAT%d, label %s, volume id %#08x\n", len(img), vol.FATType(), vol.Label(), vol.VolumeID())
	fmt.Printf("%s", b)
	fmt.Println(fi.Name(), fi.Size(), fi.Mode(), fi.ModTime())
	// Output:
	// 19456 bytes, FAT12, label FIXTURE, volume id 0x0f060ef0
	// # Long names are kept
	// hello.txt 12 -rw-r--r-- 2024-05-06 07:08:10 +0000 UTC
}

// WriteFile writes an image file from a host directory; OpenReader opens
// it again.
func ExampleWriteFile() {
	dir, err := os.MkdirTemp("", "msdos-example")
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

	img := filepath.Join(dir, "fat.img")
	opts := &msdos.Options{Size: 1440 << 10, Timestamp: time.Unix(1700000000, 0)}
	if err := msdos.WriteFile(img, fstree.Dir(src), opts); err != nil {
		log.Fatal(err)
	}

	rc, err := msdos.OpenReader(img)
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
		fmt.Println(p, fi.Mode(), fi.Size())
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// . drwxr-xr-x 0
	// sub drwxr-xr-x 0
	// sub/data.bin -rw-r--r-- 3
}
