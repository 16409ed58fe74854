package cpio_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"log"
	"testing/fstest"

	"github.com/fixturegen/fixturegen/imgkit/cpio"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// An initramfs of a tree, as find . | LC_ALL=C sort | cpio -o -H newc
// --reproducible writes it, read back.
func ExampleBuild() {
	tree := fstest.MapFS{
		"init":         {Data: []byte("#!/bin/sh\n"), Mode: 0o755},
		"etc/hostname": {Data: []byte("box\n"), Mode: 0o644},
	}
	b, err := cpio.Build(fstree.FS(tree), nil)
	if err != nil {
		log.Fatal(err)
	}
	rd, err := cpio.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range rd.Entries() {
		fmt.Printf("%-12s ino %d mode %06o size %d\n", e.Name, e.Ino, e.Mode, e.Size)
	}
	host, _ := fs.ReadFile(rd, "etc/hostname")
	fmt.Printf("%d bytes; hostname %q\n", len(b), host)
	// Output:
	// .            ino 0 mode 040755 size 0
	// etc          ino 1 mode 040755 size 0
	// etc/hostname ino 2 mode 100644 size 4
	// init         ino 3 mode 100755 size 10
	// TRAILER!!!   ino 0 mode 000000 size 0
	// 1024 bytes; hostname "box\n"
}

// A streaming archive of entries made up in the program.
func ExampleWriter() {
	var buf bytes.Buffer
	w := cpio.NewWriter(&buf, &cpio.Options{Format: cpio.FormatCRC})
	w.WriteHeader(&cpio.Header{Name: "hello", Mode: cpio.ModeRegular | 0o644, Nlink: 1, Size: 5, Check: 532})
	w.Write([]byte("hello"))
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(buf.Len(), "bytes")
	// Output: 512 bytes
}
