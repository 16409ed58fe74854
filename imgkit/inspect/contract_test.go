package inspect_test

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fixturegen/fixturegen/imgkit/inspect"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// kv is a format of this test only, written as a new format's package
// would write its side of the contract with nothing but describe: a file is
// "KV1\n" followed by lines "name=value\n", and each line is a file whose
// contents are the value.
const kvMagic = "KV1\n"

// kvMatch recognises a kv file by its magic.
func kvMatch(head []byte) bool { return bytes.HasPrefix(head, []byte(kvMagic)) }

// kvEntry is one line of a kv file.
type kvEntry struct {
	name, value string
	off         int64 // of the line
}

func kvParse(r io.ReaderAt, size int64) ([]kvEntry, error) {
	b := make([]byte, size)
	if _, err := r.ReadAt(b, 0); err != nil && err != io.EOF {
		return nil, err
	}
	if !kvMatch(b) {
		return nil, errors.New("kv: no magic")
	}
	var ents []kvEntry
	off := int64(len(kvMagic))
	for _, line := range strings.SplitAfter(string(b[off:]), "\n") {
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "=")
		if !ok || !fs.ValidPath(name) {
			return nil, errors.New("kv: bad line at byte " + strconv.FormatInt(off, 10))
		}
		ents = append(ents, kvEntry{name, value, off})
		off += int64(len(line))
	}
	return ents, nil
}

func kvOpen(r io.ReaderAt, size int64) (fs.FS, error) {
	ents, err := kvParse(r, size)
	if err != nil {
		return nil, err
	}
	fsys := fstest.MapFS{}
	for _, e := range ents {
		fsys[e.name] = &fstest.MapFile{Data: []byte(e.value), Mode: 0o644, Sys: e.off}
	}
	return fsys, nil
}

func kvFields(r io.ReaderAt, size int64) ([]describe.Field, error) {
	ents, err := kvParse(r, size)
	if err != nil {
		return nil, err
	}
	out := []describe.Field{{Path: "header", Name: "magic", Offset: 0, Size: int64(len(kvMagic)), Value: strconv.Quote(kvMagic)}}
	for _, e := range ents {
		voff := e.off + int64(len(e.name)) + 1
		sum, err := describe.SumRange(r, voff, int64(len(e.value)))
		if err != nil {
			return nil, err
		}
		out = append(out,
			describe.Field{Path: "/" + e.name, Name: "name", Offset: e.off, Size: int64(len(e.name)), Value: strconv.Quote(e.name)},
			describe.Field{Path: "/" + e.name, Name: "data", Offset: voff, Size: int64(len(e.value)), Value: describe.DataValue(int64(len(e.value)), sum)})
	}
	return out, nil
}

// kvDescribe is the Describe function of the kv format.
func kvDescribe() describe.Kind {
	return describe.Kind{
		Name:   "kv",
		Match:  kvMatch,
		Open:   kvOpen,
		Fields: kvFields,
		Summary: func(fsys fs.FS) string {
			ents, _ := fs.ReadDir(fsys, ".")
			return strconv.Itoa(len(ents)) + " entries"
		},
		Column: func(fi fs.FileInfo) string {
			if off, ok := fi.Sys().(int64); ok {
				return "line@" + strconv.FormatInt(off, 10)
			}
			return ""
		},
	}
}

// The one registry line a new format needs, here from an init function as
// a program registering its own format would write it.
func init() { inspect.Register(kvDescribe()) }

// TestContractFormat checks that a format registered with one line and
// written against describe alone is detected, listed, read and diffed, after
// the formats of this module.
func TestContractFormat(t *testing.T) {
	t.Parallel()
	a := []byte(kvMagic + "a=hello\nb=x\n")
	b := []byte(kvMagic + "a=hellp\nc=y\n")

	if got := strings.Join(inspect.Formats(), ","); got != "msdos,ar,ffs,cd9660,cpio,ext,disk,kv" {
		t.Errorf("Formats() = %s, want msdos,ar,ffs,cd9660,cpio,ext,disk,kv", got)
	}
	if f := inspect.Detect(bytes.NewReader(a), int64(len(a))); f == nil || f.Name != "kv" {
		t.Fatalf("Detect = %v, want kv", f)
	}

	var list strings.Builder
	if err := inspect.ListFile(&list, bytes.NewReader(a), int64(len(a))); err != nil {
		t.Fatal(err)
	}
	wantList := "-rw-r--r-- 5 0001-01-01 00:00:00 line@4  a\n" +
		"-rw-r--r-- 1 0001-01-01 00:00:00 line@12 b\n"
	if list.String() != wantList {
		t.Errorf("ListFile:\n%s\nwant:\n%s", list.String(), wantList)
	}

	fsys, f, err := inspect.Open(bytes.NewReader(a), int64(len(a)))
	if err != nil || f.Name != "kv" {
		t.Fatalf("Open: %v, %v", f, err)
	}
	var cat strings.Builder
	if err := inspect.Cat(&cat, fsys, "a"); err != nil || cat.String() != "hello" {
		t.Errorf("Cat a = %q, %v", cat.String(), err)
	}

	rep, err := inspect.Diff(bytes.NewReader(a), int64(len(a)), bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	rep.Write(&out, "a.kv", "b.kv")
	want := "a.kv and b.kv differ (kv, 2 entries):\n" +
		"  /a: data at byte 0x6: 5 bytes, sha256:2cf24dba5fb0a30e -> 5 bytes, sha256:" + describe.Sum([]byte("hellp"))[7:] + "; contents first differ at byte 4 of the file\n" +
		"  /b: only in a.kv at byte 0xc\n" +
		"  /c: only in b.kv at byte 0xc\n"
	if out.String() != want {
		t.Errorf("Diff:\n%s\nwant:\n%s", out.String(), want)
	}
	for _, c := range rep.Changes {
		if c.Kind == inspect.KindBytes {
			t.Errorf("bytes outside the kv fields: %+v", c)
		}
	}
}

// TestRegisterRejects checks that Register refuses a second format of a
// name and a format without what the contract requires.
func TestRegisterRejects(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		f    describe.Kind
		want string
	}{
		{kvDescribe(), "inspect: format kv registered twice"},
		{describe.Kind{Name: "nomatch", Open: kvOpen}, `inspect: format has no Match (format "nomatch")`},
		{describe.Kind{Name: "noopen", Match: kvMatch}, `inspect: format has no Open (format "noopen")`},
	} {
		func() {
			defer func() {
				if r := recover(); r != tc.want {
					t.Errorf("Register(%s): panic %v, want %q", tc.f.Name, r, tc.want)
				}
			}()
			inspect.Register(tc.f)
		}()
	}
	if got := strings.Join(inspect.Formats(), ","); got != "msdos,ar,ffs,cd9660,cpio,ext,disk,kv" {
		t.Errorf("Formats() after the rejected registrations = %s", got)
	}
}
