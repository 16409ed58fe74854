package cpio

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestReadGNU reads GNU cpio's archives of a tree in each format back:
// fstest's checks pass, and every file, link and folder of the tree is
// there with its bytes, hard links without data included.
func TestReadGNU(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "cpio")
	dir := makeTree(t, 2)
	names := findSorted(t, dir)
	for _, format := range []string{"newc", "crc", "odc"} {
		b := gnuCpio(t, dir, names, "-H", format, "--reproducible")
		rd, err := NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		// fstest opens every entry: the root holds a dangling link.
		sub, _ := fs.Sub(rd, "a")
		if err := fstest.TestFS(sub, "f3", "link2", "deep/er/big"); err != nil {
			t.Errorf("%s: %v", format, err)
		}
		sameTree(t, format, dir, rd)
	}
}

// sameTree checks that every path of dir is in fsys with the same type,
// bytes and link target.
func sameTree(t *testing.T, what, dir string, fsys fs.FS) {
	t.Helper()
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		got, err := fs.Lstat(fsys, rel)
		if err != nil {
			t.Errorf("%s: %v", what, err)
			return nil
		}
		if got.Mode() != fi.Mode() {
			t.Errorf("%s: %s: mode %v, want %v", what, rel, got.Mode(), fi.Mode())
		}
		switch {
		case fi.Mode().IsRegular():
			want, _ := os.ReadFile(p)
			b, err := fs.ReadFile(fsys, rel)
			if err != nil || !bytes.Equal(b, want) {
				t.Errorf("%s: %s: %d bytes (%v), want %d", what, rel, len(b), err, len(want))
			}
		case fi.Mode()&fs.ModeSymlink != 0:
			want, _ := os.Readlink(p)
			got, _ := fs.ReadLink(fsys, rel)
			if got != linkTarget(want) {
				t.Errorf("%s: %s -> %q, want %q", what, rel, got, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestReadConcatenated reads two archives one after the other, with NULs
// between them, as the kernel unpacks an initramfs: a file of the second
// replaces one of the first.
func TestReadConcatenated(t *testing.T) {
	t.Parallel()
	one := mustBuild(t, map[string]string{"etc/a": "first", "bin/x": "x"}, &Options{})
	two := mustBuild(t, map[string]string{"etc/a": "second!"}, &Options{Format: FormatCRC, BlockSize: 5120})
	b := append(append(one, make([]byte, 1024)...), two...)
	rd, err := NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	got, err := fs.ReadFile(rd, "etc/a")
	if err != nil || string(got) != "second!" {
		t.Errorf("etc/a = %q, %v; want the second archive's", got, err)
	}
	if _, err := fs.Stat(rd, "bin/x"); err != nil {
		t.Error(err)
	}
	if s := summary(rd); !strings.Contains(s, "2 concatenated archives") {
		t.Errorf("summary %q", s)
	}
}

// mustBuild builds the newc archive of a tree of files.
func mustBuild(t *testing.T, files map[string]string, o *Options) []byte {
	t.Helper()
	m := fstest.MapFS{}
	for k, v := range files {
		m[k] = &fstest.MapFile{Data: []byte(v), Mode: 0o644}
	}
	b, err := Build(fstree.FS(m), o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReadBadHeaders gives the reader truncated and lying archives: each
// is one error wrapping ErrFormat that names the byte offset and the field.
func TestReadBadHeaders(t *testing.T) {
	t.Parallel()
	good := mustBuild(t, map[string]string{"hello": "hello, world\n"}, &Options{BlockSize: 1})
	// the entry "hello" follows the root "." (110 + 2 bytes, padded to 112)
	set := func(off int, s string) []byte {
		b := bytes.Clone(good)
		copy(b[off:], s)
		return b
	}
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"truncated header", good[:150], "truncated in a header"},
		{"truncated data", good[:112+110+8+5], "c_filesize 13"},
		{"no trailer", good[:len(good)-124], "no TRAILER!!!"},
		{"lying filesize", set(112+54, "7FFFFFFF"), "runs past the end"},
		{"lying namesize", set(112+94, "00100000"), "c_namesize"},
		{"zero namesize", set(112+94, "00000000"), "c_namesize is 0"},
		{"bad digit", set(112+6, "0000000G"), "c_ino"},
		{"bad magic", set(112, "070703"), "bad magic"},
		{"binary", []byte{0xc7, 0x71, 0, 0, 0, 0, 0, 0}, "binary"},
		{"junk after trailer", append(bytes.Clone(good), "junk!!!!"...), "bad magic"},
		{"empty", nil, "empty"},
	} {
		_, err := NewReader(bytes.NewReader(c.b), int64(len(c.b)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
			continue
		}
		if !errors.Is(err, ErrFormat) && !errors.Is(err, ErrUnsupportedFormat) {
			t.Errorf("%s: %v does not wrap ErrFormat", c.name, err)
		}
		if c.b != nil && !strings.Contains(err.Error(), "byte 0x") {
			t.Errorf("%s: %v names no offset", c.name, err)
		}
	}
}
