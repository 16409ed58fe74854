package ar

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// editStep is one edit: the tool's arguments (the archive's place marked
// by "@") and the same edit through an Archive.
type editStep struct {
	args []string
	opts EditOptions
	edit func(a *Archive) error
}

var editSteps = []editStep{
	{[]string{"rcsD", "@", "a.o", "b.o", "c.o"}, EditOptions{},
		func(a *Archive) error { return a.Replace("a.o", "b.o", "c.o") }},
	{[]string{"rbD", "a.o", "@", "e.o", "notobj.txt"}, EditOptions{RelPos: "a.o"},
		func(a *Archive) error { return a.Replace("e.o", "notobj.txt") }},
	{[]string{"qD", "@", "c.o", "a_member_name_longer_than_fifteen.o"}, EditOptions{},
		func(a *Archive) error { return a.Append("c.o", "a_member_name_longer_than_fifteen.o") }},
	{[]string{"rD", "@", "sub/c.o", "odd.txt"}, EditOptions{},
		func(a *Archive) error { return a.Replace("sub/c.o", "odd.txt") }},
	{[]string{"raD", "notobj.txt", "@", "b.o"}, EditOptions{RelPos: "notobj.txt", After: true},
		func(a *Archive) error { return a.Replace("b.o") }},
	{[]string{"dND", "2", "@", "c.o"}, EditOptions{Count: 2},
		func(a *Archive) error { a.Delete("c.o"); return nil }},
	{[]string{"mbD", "e.o", "@", "odd.txt", "a.o"}, EditOptions{RelPos: "e.o"},
		func(a *Archive) error { return a.Move("odd.txt", "a.o") }},
	{[]string{"mD", "@", "e.o"}, EditOptions{},
		func(a *Archive) error { return a.Move("e.o") }},
	{[]string{"dD", "@", "b.o", "nothere.o"}, EditOptions{},
		func(a *Archive) error { a.Delete("b.o", "nothere.o"); return nil }},
	{[]string{"sD", "@"}, EditOptions{},
		func(a *Archive) error { return nil }},
}

// TestEditMatchesGNUAndLLVM runs a sequence of edits through GNU ar,
// llvm-ar and an Archive with the matching Compat, and compares the
// archive files after every step.
func TestEditMatchesGNUAndLLVM(t *testing.T) {
	t.Parallel()
	gnu := tooltest.Need(t, "ar")
	llvm := tooltest.Need(t, "llvm-ar")
	dir := setupDir(t)
	for _, tool := range []struct {
		path   string
		compat Compat
		format Format
		extra  []string
	}{
		{gnu, CompatGNU, FormatGNU, nil},
		{llvm, CompatLLVM, FormatGNU, nil},
		{llvm, CompatLLVM, FormatBSD, []string{"--format=bsd"}},
	} {
		ref := fmt.Sprintf("ref-%v-%v.a", tool.compat, tool.format)
		lib := fmt.Sprintf("lib-%v-%v.a", tool.compat, tool.format)
		for i, s := range editSteps {
			args := append([]string{}, tool.extra...)
			for _, a := range s.args {
				if a == "@" {
					a = ref
				}
				args = append(args, a)
			}
			run(t, dir, tool.path, args...)

			opts := s.opts
			opts.Dir = dir
			opts.Compat = tool.compat
			opts.Format = tool.format
			a, err := OpenArchive(lib, &opts)
			if err != nil {
				t.Fatal(err)
			}
			if a.Exists() != (i > 0) {
				t.Errorf("step %d: Exists() = %v", i, a.Exists())
			}
			if err := s.edit(a); err != nil {
				t.Fatalf("%s: %v", strings.Join(args, " "), err)
			}
			if err := a.Commit(); err != nil {
				t.Fatal(err)
			}
			a.Close()
			want, err := os.ReadFile(filepath.Join(dir, ref))
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(dir, lib))
			if err != nil {
				t.Fatal(err)
			}
			sameBytes(t, filepath.Base(tool.path)+" "+strings.Join(args, " "), got, want)
		}
	}
}

// TestEditMoveOrder checks the one edit where the compats disagree: m
// of several members moves them one by one in the order given (GNU) or
// as one block in archive order (LLVM).
func TestEditMoveOrder(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		compat Compat
		want   string
	}{
		{CompatGNU, "a e c b d"},
		{CompatLLVM, "a c e b d"},
	} {
		dir := t.TempDir()
		for _, n := range []string{"a", "b", "c", "d", "e"} {
			if err := os.WriteFile(filepath.Join(dir, n), []byte(n+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		opts := &EditOptions{Dir: dir, Options: Options{Compat: c.compat}}
		a, err := OpenArchive("x.a", opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Replace("a", "b", "c", "d", "e"); err != nil {
			t.Fatal(err)
		}
		if err := a.Commit(); err != nil {
			t.Fatal(err)
		}
		a.Close()
		opts.RelPos, opts.After = "a", true
		if a, err = OpenArchive("x.a", opts); err != nil {
			t.Fatal(err)
		}
		if err := a.Move("c", "e"); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range a.Entries() {
			names = append(names, e.Name)
		}
		if got := strings.Join(names, " "); got != c.want {
			t.Errorf("%v: m after a of c e gives %s, want %s", c.compat, got, c.want)
		}
		a.Close()
	}
}

// newArchive writes files named after their contents into a new
// directory and archives them, with opts, as "ar q" does.
func newArchive(t *testing.T, opts *EditOptions, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte(f+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	o := *opts
	o.Dir = dir
	a, err := OpenArchive("lib.a", &o)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.Append(files...); err != nil {
		t.Fatal(err)
	}
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestEditSelectAndExtract(t *testing.T) {
	t.Parallel()
	dir := newArchive(t, &EditOptions{FullPath: true}, "one", "subdirectory/one", "two", "one")
	os.RemoveAll(filepath.Join(dir, "subdirectory"))
	for _, c := range []struct {
		opts  EditOptions
		names []string
		want  []int
		err   string
	}{
		{EditOptions{}, nil, []int{0, 1, 2, 3}, ""},
		{EditOptions{}, []string{"one"}, []int{0, 3}, ""},
		{EditOptions{Count: 2}, []string{"one"}, []int{3}, ""},
		{EditOptions{Count: 3}, []string{"one", "two"}, nil, "ar: lib.a: no entry one, two in archive"},
		{EditOptions{FullPath: true}, []string{"subdirectory/one", "three"}, []int{1}, "ar: lib.a: no entry three in archive"},
	} {
		o := c.opts
		o.Dir = dir
		a, err := OpenArchive("lib.a", &o)
		if err != nil {
			t.Fatal(err)
		}
		got, err := a.Select(c.names...)
		if fmt.Sprint(got) != fmt.Sprint(c.want) || fmt.Sprint(err) != fmt.Sprint(errorOrNil(c.err)) {
			t.Errorf("Select(%q) with Count %d: %v, %v; want %v, %s", c.names, c.opts.Count, got, err, c.want, c.err)
		}
		a.Close()
	}

	// Without FullPath a member holding '/' is refused (after "one" is
	// written); with it, it is extracted under its path, and Count picks
	// the second "one".
	if err := os.Mkdir(filepath.Join(dir, "subdirectory"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		opts  EditOptions
		names []string
		err   string
	}{
		{EditOptions{}, nil, `ar: lib.a: member "subdirectory/one": illegal output pathname`},
		{EditOptions{FullPath: true, KeepDates: true}, []string{"subdirectory/one"}, ""},
		{EditOptions{Count: 2}, []string{"one"}, ""},
	} {
		o := c.opts
		o.Dir = dir
		var verbose bytes.Buffer
		o.Verbose = &verbose
		a, err := OpenArchive("lib.a", &o)
		if err != nil {
			t.Fatal(err)
		}
		err = a.Extract(c.names...)
		a.Close()
		if fmt.Sprint(err) != fmt.Sprint(errorOrNil(c.err)) {
			t.Errorf("Extract(%q): %v, want %s", c.names, err, c.err)
		}
		if c.err == "" && verbose.String() != "x - "+c.names[0]+"\n" {
			t.Errorf("Extract(%q): Verbose got %q", c.names, verbose.String())
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "subdirectory/one")); err != nil || string(b) != "subdirectory/one\n" {
		t.Errorf("subdirectory/one: %q, %v", b, err)
	}
	if st, err := os.Stat(filepath.Join(dir, "subdirectory/one")); err != nil || !st.ModTime().Equal(time.Unix(0, 0)) || st.Mode().Perm() != 0o644 {
		t.Errorf("subdirectory/one: %v, %v; want date 0 (the member's), mode 644", st.ModTime(), err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "one")); err != nil || string(b) != "one\n" {
		t.Errorf("one: %q, %v", b, err)
	}
}

func errorOrNil(s string) error {
	if s == "" {
		return nil
	}
	return errors.New(s)
}

// TestEditUpdate checks that Update replaces a member only by a newer
// file, and that Replace replaces in place while Append adds.
func TestEditUpdate(t *testing.T) {
	t.Parallel()
	dir := newArchive(t, &EditOptions{FileMetadata: true}, "old", "new")
	past := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(dir, "old"), past, past)
	future := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(dir, "new"), future, future)
	os.WriteFile(filepath.Join(dir, "old"), []byte("OLD\n"), 0o644)
	os.Chtimes(filepath.Join(dir, "old"), past, past)
	os.WriteFile(filepath.Join(dir, "new"), []byte("NEW\n"), 0o644)
	os.Chtimes(filepath.Join(dir, "new"), future, future)

	var verbose bytes.Buffer
	a, err := OpenArchive("lib.a", &EditOptions{Dir: dir, Update: true, FileMetadata: true, Verbose: &verbose})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.Replace("old", "new"); err != nil {
		t.Fatal(err)
	}
	if err := a.Append("old"); err != nil {
		t.Fatal(err)
	}
	if verbose.String() != "r - new\na - old\n" {
		t.Errorf("Verbose: %q", verbose.String())
	}
	var got []string
	for _, e := range a.Entries() {
		b := make([]byte, e.Size)
		e.Data.ReadAt(b, 0)
		got = append(got, e.Name+"="+strings.TrimSpace(string(b)))
	}
	if s := strings.Join(got, " "); s != "old=old new=NEW old=OLD" {
		t.Errorf("members: %s", s)
	}
}

func TestEditErrors(t *testing.T) {
	t.Parallel()
	dir := newArchive(t, &EditOptions{}, "one")
	thinDir := newArchive(t, &EditOptions{Options: Options{Thin: true}}, "one")

	open := func(dir string, o EditOptions) *Archive {
		t.Helper()
		o.Dir = dir
		a, err := OpenArchive("lib.a", &o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close() })
		return a
	}
	if err := open(dir, EditOptions{Options: Options{Thin: true}}).Replace("one"); err == nil ||
		err.Error() != "ar: lib.a: cannot convert an existing archive to a thin archive" {
		t.Errorf("Thin on a regular archive: %v", err)
	}
	if err := open(thinDir, EditOptions{}).Append("one"); err == nil ||
		err.Error() != "ar: lib.a: cannot convert an existing thin archive to a normal archive" {
		t.Errorf("a thin archive without Thin: %v", err)
	}
	// Extracting a thin archive's member beside the archive would
	// truncate the member file itself.
	if err := open(thinDir, EditOptions{}).Extract(); err == nil ||
		err.Error() != "ar: lib.a: thin member one is the file one it would be extracted to" {
		t.Errorf("Extract of a thin archive over its member files: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(thinDir, "one")); err != nil || len(b) == 0 {
		t.Errorf("Extract of a thin archive over its member files left one as %q, %v", b, err)
	}
	if err := open(thinDir, EditOptions{Options: Options{Format: FormatBSD}}).Commit(); !errors.Is(err, ErrThinBSD) {
		t.Errorf("Commit of a thin archive in FormatBSD: %v, want ErrThinBSD", err)
	}
	if err := open(dir, EditOptions{}).Move("one", "two"); err == nil ||
		err.Error() != "ar: lib.a: no entry two in archive" {
		t.Errorf("Move of a missing member: %v", err)
	}
	if err := open(dir, EditOptions{}).Replace("missing"); !errors.Is(err, os.ErrNotExist) ||
		!strings.HasPrefix(err.Error(), "ar: missing: ") {
		t.Errorf("Replace of a missing file: %v", err)
	}
	if err := open(dir, EditOptions{}).Replace("."); err == nil || err.Error() != "ar: .: not a regular file" {
		t.Errorf("Replace of a directory: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "bad.a"), []byte("!<arch>\nshort"), 0o644)
	if _, err := OpenArchive("bad.a", &EditOptions{Dir: dir}); !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrHeader) ||
		!strings.HasPrefix(err.Error(), "ar: bad.a: ") {
		t.Errorf("OpenArchive of a damaged archive: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "lib.a")); err != nil || !bytes.Contains(b, []byte("one\n")) {
		t.Errorf("lib.a changed by failed edits: %q, %v", b, err)
	}
}
