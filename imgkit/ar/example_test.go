package ar_test

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"log"

	"github.com/fixturegen/fixturegen/imgkit/ar"
)

// This example writes an archive with a Writer, as with archive/tar, and
// lists it back through the Reader's io/fs.FS. The zero Options write what
// GNU "ar rcsD" writes, so the bytes are the same on every run.
func ExampleWriter() {
	var buf bytes.Buffer
	w := ar.NewWriter(&buf, nil)
	for _, m := range []struct{ name, body string }{
		{"hello.txt", "hello, world\n"},
		{"a_name_longer_than_fifteen_bytes.txt", "GNU ar keeps long names in the // member\n"},
		{"hello.txt", "a second member of the same name\n"},
	} {
		hdr := &ar.Header{Name: m.name, Mode: 0o644, Size: int64(len(m.body))}
		if err := w.WriteHeader(hdr); err != nil {
			log.Fatal(err)
		}
		if _, err := io.WriteString(w, m.body); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("archive of", buf.Len(), "bytes")

	r, err := ar.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		log.Fatal(err)
	}
	err = fs.WalkDir(r, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Println(info.Mode(), info.Size(), path)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// archive of 376 bytes
	// drwxr-xr-x 0 .
	// -rw-r--r-- 41 a_name_longer_than_fifteen_bytes.txt
	// -rw-r--r-- 13 hello.txt
	// -rw-r--r-- 33 hello.txt;2
}

// This example opens a static library and reads one of its members with
// fs.ReadFile, as from any io/fs.FS.
func ExampleOpenReader() {
	rc, err := ar.OpenReader("testdata/libcalc.a")
	if err != nil {
		log.Fatal(err)
	}
	defer rc.Close()
	for _, m := range rc.Members() {
		fmt.Printf("%-6s %4d bytes at offset %d\n", m.Name, m.Size, m.DataOffset)
	}
	readme, err := fs.ReadFile(rc, "README")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(readme))
	// Output:
	// README   54 bytes at offset 162
	// add.o   512 bytes at offset 276
	// mul.o   544 bytes at offset 848
	// libcalc: add and mul, for the examples of package ar.
}

// This example looks symbols up in an archive's symbol index, as a linker
// does to find the member that defines a symbol.
func ExampleReader_Symbols() {
	rc, err := ar.OpenReader("testdata/libcalc.a")
	if err != nil {
		log.Fatal(err)
	}
	defer rc.Close()
	fmt.Println("index:", rc.Index())
	defines := map[string]string{}
	for _, s := range rc.Symbols() {
		defines[s.Name] = rc.Members()[s.Member].Name
	}
	for _, name := range []string{"mul", "add", "sub"} {
		if m, ok := defines[name]; ok {
			fmt.Println(name, "is defined in", m)
		} else {
			fmt.Println(name, "is not in the index")
		}
	}
	// Output:
	// index: /
	// mul is defined in mul.o
	// add is defined in add.o
	// sub is not in the index
}

// This example deletes a member, as "ar d" does: a Plan over the members
// that stay, read in place from the old archive, lays out a new archive
// whose symbol index it rebuilds from the ELF objects among them.
func ExampleNewPlan() {
	old, err := ar.OpenReader("testdata/libcalc.a")
	if err != nil {
		log.Fatal(err)
	}
	defer old.Close()
	var entries []ar.Entry
	for i, m := range old.Members() {
		if m.Name == "add.o" {
			continue
		}
		data, err := old.Section(i)
		if err != nil {
			log.Fatal(err)
		}
		entries = append(entries, ar.Entry{Header: m.Header, Data: data})
	}
	p, err := ar.NewPlan(entries, nil)
	if err != nil {
		log.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := p.WriteTo(&buf); err != nil {
		log.Fatal(err)
	}
	fmt.Println("archive of", p.Size(), "bytes, members at", p.Offsets())

	r, err := ar.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range r.Symbols() {
		fmt.Println(s.Name, "in", r.Members()[s.Member].Name, "at", s.Offset)
	}
	// Output:
	// archive of 812 bytes, members at [94 208]
	// mul in mul.o at 208
	// mul_fast in mul.o at 208
}
