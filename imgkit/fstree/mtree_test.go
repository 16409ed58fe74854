package fstree

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// readSpec parses text as a spec named "spec.mtree".
func readSpec(t *testing.T, text string) *Spec {
	t.Helper()
	s, err := ReadSpec(strings.NewReader(text), "spec.mtree")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A spec in the relative (cd-style) form that mtree -c writes, with /set,
// /unset, continuations, comments and vis-encoded names.
const relSpec = `#	   user: nobody
#	comment lines and blank lines are skipped

/set type=file uid=0 gid=0 mode=0644 nlink=1 flags=none
.               type=dir mode=0755 time=1000000000.000000000
    bin         type=dir mode=0755 time=1000000001.5
        sh      mode=0555 size=0 time=1000000002.000000000 \
                sha256digest=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
        with\sspace size=0 time=7
        oct\303\251 size=0 time=7 # a comment after keywords
        meta\M-i size=0 time=7
    ..
    dev         type=dir mode=0755 time=7
        null    type=char mode=0666 device=native,1,3 time=7
        sda1    type=block mode=0640 gid=6 device=freebsd,8,1 time=7
        fifo    type=fifo mode=0600 time=7
    ..
    etc         type=dir mode=0755 time=7
/unset flags
        rc.conf size=0 time=7 flags=uchg,nodump uname=toor gname=operator
        motd    type=link link=../var/run/motd time=7
    ..
..
`

func TestReadSpecRelative(t *testing.T) {
	t.Parallel()
	ts := time.Unix(42, 0).UTC()
	lookup := func(m map[string]uint32) func(string) (uint32, error) {
		return func(name string) (uint32, error) {
			if id, ok := m[name]; ok {
				return id, nil
			}
			return 0, fmt.Errorf("no such name %q", name)
		}
	}
	opts := &Options{
		LookupUser:  lookup(map[string]uint32{"toor": 0}),
		LookupGroup: lookup(map[string]uint32{"operator": 5}),
	}
	tr, err := ApplySpec(nil, readSpec(t, relSpec), false, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".", "bin", "bin/meta\xe9", "bin/octé", "bin/sh", "bin/with space", "dev", "dev/fifo", "dev/null", "dev/sda1", "etc", "etc/motd", "etc/rc.conf"}
	if got := paths(t, tr); !slices.Equal(got, want) {
		t.Errorf("paths:\n got %q\nwant %q", got, want)
	}
	if r := tr.Root; r.Mode != 0o755 || r.Mtime.Unix() != 1000000000 || r.Nlink != 5 {
		t.Errorf("root: %+v", r)
	}
	if n := tr.Lookup("bin"); n.Mtime.Nanosecond() != 5 {
		t.Errorf("time=sec.5 is 5 ns in mtree: %v", n.Mtime)
	}
	if n := tr.Lookup("bin/sh"); n.Type != TypeFile || n.Mode != 0o555 || n.Size != 0 || n.Mtime.Unix() != 1000000002 || !n.Atime.Equal(n.Mtime) {
		t.Errorf("bin/sh: %+v", n)
	}
	if n := tr.Lookup("dev/null"); n.Type != TypeChar || Major(n.Rdev) != 1 || Minor(n.Rdev) != 3 {
		t.Errorf("dev/null: %v %d,%d", n.Type, Major(n.Rdev), Minor(n.Rdev))
	}
	if n := tr.Lookup("dev/sda1"); n.Type != TypeBlock || n.Rdev != 0x801 || n.GID != 6 {
		t.Errorf("dev/sda1: %v %#x gid %d", n.Type, n.Rdev, n.GID)
	}
	rc := tr.Lookup("etc/rc.conf")
	if rc.Flags != FlagUImmut|FlagNodump || rc.Uname != "toor" || rc.Gname != "operator" || rc.UID != 0 || rc.GID != 5 {
		t.Errorf("etc/rc.conf: flags %#x %s:%s %d:%d", rc.Flags, rc.Uname, rc.Gname, rc.UID, rc.GID)
	}
	if n := tr.Lookup("etc/motd"); n.Type != TypeSymlink || n.Link != "../var/run/motd" || n.Size != 15 {
		t.Errorf("etc/motd: %+v", n)
	}
	f, err := rc.Open()
	if err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(f); err != nil || len(b) != 0 {
		t.Errorf("spec-only empty file reads %q, %v", b, err)
	}

	// -T replaces the spec's times too; SOURCE_DATE_EPOCH clamps them.
	opts.Timestamp = ts
	tr, err = ApplySpec(nil, readSpec(t, relSpec), false, opts)
	if err != nil {
		t.Fatal(err)
	}
	if n := tr.Lookup("bin/sh"); !n.Mtime.Equal(ts) || !n.Birthtime.Equal(ts) {
		t.Errorf("-T: %v", n.Mtime)
	}
	opts.Timestamp, opts.ClampTimes = ts, true
	tr, err = ApplySpec(nil, readSpec(t, relSpec), false, opts)
	if err != nil {
		t.Fatal(err)
	}
	if n := tr.Lookup("bin/sh"); !n.Mtime.Equal(ts) {
		t.Errorf("SDE: %v", n.Mtime)
	}
	if n := tr.Lookup("dev/null"); n.Mtime.Unix() != 7 {
		t.Errorf("SDE changed an earlier time: %v", n.Mtime)
	}
}

func TestReadSpecFullPaths(t *testing.T) {
	t.Parallel()
	// The form of FreeBSD's METALOG: full paths, entries repeated, which
	// makefs takes with -D: the first entry for a path is kept.
	var warn strings.Builder
	spec, err := ReadSpecOptions(strings.NewReader(`#mtree 2.0
. type=dir uid=0 gid=0 mode=0755
./usr type=dir uid=0 gid=0 mode=0755
./usr/share type=dir uid=0 gid=0 mode=0755
./usr/share/x type=file uid=0 gid=0 mode=0444 size=3
./usr/share/x mode=0400
usr/lib type=dir uid=0 gid=0 mode=u=rwx,go=rx
./usr/lib/libc.so.7 type=file uid=0 gid=0 mode=0444 flags=schg
`), "METALOG", &SpecOptions{Duplicates: DuplicatesWarn, Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	if want := "METALOG:6: warning: duplicate definition of ./usr/share/x (first at line 5)\n"; warn.String() != want {
		t.Errorf("warnings %q, want %q", warn.String(), want)
	}
	tr, err := ApplySpec(nil, spec, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := tr.Lookup("usr/share/x"); n == nil || n.Mode != 0o444 || n.Size != 3 || !n.Mtime.Equal(time.Unix(0, 0)) {
		t.Errorf("usr/share/x: %+v", n)
	}
	f, _ := tr.Lookup("usr/share/x").Open()
	if b, _ := io.ReadAll(f); string(b) != "\x00\x00\x00" {
		t.Errorf("size=3 without contents reads %q", b)
	}
	if n := tr.Lookup("usr/lib"); n.Mode != 0o755 {
		t.Errorf("symbolic mode: %o", n.Mode)
	}
	if n := tr.Lookup("usr/lib/libc.so.7"); n.Flags != FlagSImmut {
		t.Errorf("flags %#x", n.Flags)
	}
}

func TestApplySpecMerge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mkfile(t, dir, "keep", "kept")
	mkfile(t, dir, "sub/a", "aaaa")
	mkfile(t, dir, "sub/unnamed", "u")
	mkfile(t, dir, "skipped/inner", "i")
	mkfile(t, dir, "ign/inner", "i")
	data := mkfile(t, t.TempDir(), "payload", "from contents")
	spec := readSpec(t, `
/set uid=0 gid=0
.       type=dir mode=0755
keep    mode=0600 uid=1001 gid=1002 flags=uarch size=4
sub     type=dir
    a   type=file mode=0640
    new type=file mode=0644 contents=`+filepath.ToSlash(data)+`
    opt type=file mode=0644 optional
    ln  type=link mode=0777 link=a
    ..
ign     type=dir ignore
`)
	tr, err := WalkDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr, err = ApplySpec(tr, spec, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".", "ign", "ign/inner", "keep", "skipped", "skipped/inner", "sub", "sub/a", "sub/ln", "sub/new", "sub/unnamed"}
	if got := paths(t, tr); !slices.Equal(got, want) {
		t.Errorf("merged:\n got %q\nwant %q", got, want)
	}
	if n := tr.Lookup("keep"); n.Mode != 0o600 || n.UID != 1001 || n.GID != 1002 || n.Flags != FlagUArchive || n.SourcePath == "" {
		t.Errorf("keep: %+v", n)
	}
	if n := tr.Lookup("sub/new"); n.Size != 13 || n.SourcePath != data {
		t.Errorf("sub/new: size %d source %q", n.Size, n.SourcePath)
	}

	if tr, err = WalkDir(dir, nil); err != nil {
		t.Fatal(err)
	}
	tr, err = ApplySpec(tr, spec, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	want = []string{".", "ign", "ign/inner", "keep", "sub", "sub/a", "sub/ln", "sub/new"}
	if got := paths(t, tr); !slices.Equal(got, want) {
		t.Errorf("with -x:\n got %q\nwant %q", got, want)
	}
}

func TestApplySpecHardLinkExcluded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first := mkfile(t, dir, "a", "x")
	for _, n := range []string{"b", "c"} {
		if err := os.Link(first, filepath.Join(dir, n)); err != nil {
			t.Skip(err)
		}
	}
	tr, err := WalkDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Lookup("a").Nlink == 1 {
		t.Skip("no inode numbers here")
	}
	tr, err = ApplySpec(tr, readSpec(t, ". type=dir\nb type=file\nc type=file\n"), true, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, c := tr.Lookup("b"), tr.Lookup("c")
	if b.HardLink != nil || c.HardLink != b || b.Nlink != 2 || c.Nlink != 2 {
		t.Errorf("after -x dropped the first name: b→%v c→%v nlink %d %d", b.HardLink, c.HardLink, b.Nlink, c.Nlink)
	}
}

func TestSpecErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mkfile(t, dir, "file", "data")
	cases := []struct {
		name, spec string
		onDisk     bool // merge with dir
		line       int
		sentinel   error
	}{
		{"unknown keyword", ". type=dir\nx type=file colour=blue\n", false, 2, ErrSpecKeyword},
		{"bad octal mode", "\n\nx type=file mode=0999 uid=0 gid=0\n", false, 3, ErrSpecValue},
		{"mode too big", "x type=file mode=017777\n", false, 1, ErrSpecValue},
		{"bad symbolic mode", "x type=file mode=u=rwq\n", false, 1, ErrSpecValue},
		{"no type", ". type=dir\n# c\nx mode=0644 uid=0 gid=0\n", false, 3, ErrSpecMissing},
		{"no mode", "x type=file uid=0 gid=0\n", false, 1, ErrSpecMissing},
		{"no uid", "/set mode=0644\nx type=file gid=0\n", false, 2, ErrSpecMissing},
		{"no link", "x type=link mode=0777 uid=0 gid=0\n", false, 1, ErrSpecMissing},
		{"no device", "x type=char mode=0600 uid=0 gid=0\n", false, 1, ErrSpecMissing},
		{"type conflict", ". type=dir\n\nfile type=dir\n", true, 3, ErrTypeConflict},
		{"root not dir", ". type=file\n", true, 1, ErrTypeConflict},
		{"child of a file", "file type=file\nfile/x type=file\n", true, 2, ErrSpecSyntax},
		{"bad flag", "x type=file flags=uchg,sparkly\n", false, 1, ErrBadFlag},
		{"bad type", "x type=door\n", false, 1, ErrSpecValue},
		{"bad time", "x time=12.x\n", false, 1, ErrSpecValue},
		{"nsec too big", "x time=12.1000000000\n", false, 1, ErrSpecValue},
		{"bad uid", "x uid=-1\n", false, 1, ErrSpecValue},
		{"bad size", "x size=big\n", false, 1, ErrSpecValue},
		{"no value", "x mode\n", false, 1, ErrSpecValue},
		{"value on optional", "x optional=yes\n", false, 1, ErrSpecValue},
		{"bad device", "x device=weird,1,2\n", false, 1, ErrSpecValue},
		{"bad escape", "x\\q type=file\n", false, 1, ErrSpecSyntax},
		{"missing parent", ". type=dir\n./a/b type=file\n", false, 2, ErrSpecSyntax},
		{"dot dot in path", "./a/../b type=file\n", false, 1, ErrSpecSyntax},
		{"unknown command", "/frob x\n", false, 1, ErrSpecSyntax},
		{"unset unknown", "/unset colour\n", false, 1, ErrSpecKeyword},
		{"duplicate", "x type=file\nx type=dir\n", false, 2, ErrSpecDuplicate},
		{"duplicate full path", "./d type=dir\n./d/x type=file\nd/x mode=0600\n", false, 3, ErrSpecDuplicate},
		{"size differs", "file type=file size=5\n", true, 1, ErrSpecValue},
		{"contents missing", "x type=file mode=0644 uid=0 gid=0 contents=/nonexistent/zz\n", false, 1, ErrSpecValue},
		{"unknown user", "x type=file mode=0644 uname=no-such-user-fixturegen gid=0\n", false, 1, ErrSpecValue},
		{"continued", "x type=file \\\n  mode=0644 \\\n  flags=bogus\n", false, 1, ErrBadFlag},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			spec, err := ReadSpec(strings.NewReader(c.spec), "bad.mtree")
			if err == nil {
				var tr *Tree
				if c.onDisk {
					if tr, err = WalkDir(dir, nil); err != nil {
						t.Fatal(err)
					}
				}
				_, err = ApplySpec(tr, spec, false, nil)
			}
			if err == nil {
				t.Fatal("no error")
			}
			prefix := fmt.Sprintf("bad.mtree:%d: ", c.line)
			if !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("error %q does not start with %q", err, prefix)
			}
			if !errors.Is(err, c.sentinel) {
				t.Errorf("error %q is not %v", err, c.sentinel)
			}
			var se *SpecError
			if !errors.As(err, &se) || se.Line != c.line || se.File != "bad.mtree" {
				t.Errorf("error %q: not a *SpecError at line %d", err, c.line)
			}
		})
	}
}

func TestUnvis(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`plain`: "plain", `a\sb`: "a b", `a\040b`: "a b", `\\`: `\`, `\t\n\r`: "\t\n\r",
		`\M-a`: "\xe1", `\M^A`: "\x81", `\^?`: "\x7f", `\^A`: "\x01", `\E`: "\x1b", `x\$`: "x",
		`\0`: "\x00", `\1234`: "S4", `\303\251`: "é",
	} {
		got, err := unvis(in)
		if err != nil || got != want {
			t.Errorf("unvis(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{`x\`, `\q`, `\M`, `\M-`, `\Mx1`, `\^`, `\777`} {
		if _, err := unvis(bad); err == nil {
			t.Errorf("unvis(%q): no error", bad)
		}
	}
}

func TestParseFlags(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]uint32{
		"none": 0, "uchg": FlagUImmut, "schg,nodump": FlagSImmut | FlagNodump,
		"uappnd,sappnd,opaque,hidden": FlagUAppend | FlagSAppend | FlagOpaque | FlagHidden,
		"uchg,nouchg":                 0, "nodump,dump": 0, "arch,snapshot,sunlnk,uunlink": FlagSArchived | FlagSnapshot | FlagSNounlink | FlagUNounlink,
	} {
		if got, err := ParseFlags(in); err != nil || got != want {
			t.Errorf("ParseFlags(%q) = %#x, %v; want %#x", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "uchg,", "nope", "nonodump"} {
		if _, err := ParseFlags(bad); !errors.Is(err, ErrBadFlag) {
			t.Errorf("ParseFlags(%q): %v", bad, err)
		}
	}
}

func TestSpecDeterministic(t *testing.T) {
	t.Parallel()
	a, err := ApplySpec(nil, readSpec(t, relSpec), false, &Options{LookupUser: func(string) (uint32, error) { return 7, nil }, LookupGroup: func(string) (uint32, error) { return 8, nil }})
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		b, _ := ApplySpec(nil, readSpec(t, relSpec), false, &Options{LookupUser: func(string) (uint32, error) { return 7, nil }, LookupGroup: func(string) (uint32, error) { return 8, nil }})
		if dump(a) != dump(b) {
			t.Fatal("two applications of one spec differ")
		}
	}
}

func TestSpecOnlyFileAndTypeNames(t *testing.T) {
	t.Parallel()
	tr, err := ApplySpec(nil, readSpec(t, "f type=file mode=04755 uid=0 gid=0 size=5\n"), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := tr.Lookup("f").Open()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Name() != "f" || fi.Size() != 5 || fi.IsDir() || fi.Mode() != fs.ModeSetuid|0o755 || !fi.ModTime().Equal(time.Unix(0, 0)) {
		t.Errorf("Stat: %v %v", fi, err)
	}
	ra := f.(io.ReaderAt)
	b := make([]byte, 4)
	if n, err := ra.ReadAt(b, 3); n != 2 || err != io.EOF {
		t.Errorf("ReadAt past the end: %d %v", n, err)
	}
	for typ, name := range map[Type]string{TypeFile: "file", TypeDir: "dir", TypeSymlink: "link", TypeFIFO: "fifo", TypeSocket: "socket", TypeChar: "char", TypeBlock: "block", 0: "Type(0)", 99: "Type(99)"} {
		if typ.String() != name {
			t.Errorf("Type(%d).String() = %q", typ, typ.String())
		}
	}
}

func TestHostUserLookup(t *testing.T) {
	t.Parallel()
	// uname without uid uses the host's user database, as makefs does.
	// Only a host whose user database has no root (a bare container) is
	// a reason to skip; any other ApplySpec error is a failure.
	if u, err := user.Lookup("root"); err != nil || u.Uid != "0" {
		t.Skipf("the host's user database has no root with uid 0: %v %v", u, err)
	}
	tr, err := ApplySpec(nil, readSpec(t, "f type=file mode=0644 uname=root gid=0\n"), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := tr.Lookup("f"); n.UID != 0 || n.Uname != "root" {
		t.Errorf("uname=root: uid %d uname %q", n.UID, n.Uname)
	}
}

// With -DD (DuplicatesIgnore) a repeated entry is dropped without a word,
// and a repeated relative directory entry does not enter the directory.
func TestReadSpecDuplicatesIgnore(t *testing.T) {
	t.Parallel()
	text := `/set uid=0 gid=0
. type=dir mode=0755
sub type=dir mode=0700
    a type=file mode=0600
    ..
sub type=dir mode=0711
b type=file mode=0644
`
	var warn strings.Builder
	spec, err := ReadSpecOptions(strings.NewReader(text), "s", &SpecOptions{Duplicates: DuplicatesIgnore, Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	if warn.Len() != 0 {
		t.Errorf("DuplicatesIgnore warned: %q", warn.String())
	}
	tr, err := ApplySpec(nil, spec, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := tr.Lookup("sub"); n == nil || n.Mode != 0o700 {
		t.Errorf("sub = %+v, want the first entry's mode 0700", n)
	}
	if tr.Lookup("b") == nil || tr.Lookup("sub/b") != nil {
		t.Errorf("the ignored directory entry changed the current directory: %q", paths(t, tr))
	}
	if _, err := ReadSpec(strings.NewReader(text), "s"); !errors.Is(err, ErrSpecDuplicate) {
		t.Errorf("ReadSpec of a repeated entry: %v, want ErrSpecDuplicate", err)
	}
}

// TestReadSpecBOM checks that a UTF-8 byte-order mark at the start of a
// spec (an editor's) is skipped, also with CR LF line endings, rather than
// read as part of the first word.
func TestReadSpecBOM(t *testing.T) {
	t.Parallel()
	const text = "/set type=file uid=0 gid=0 mode=0644\n. type=dir time=7\n    a size=0 time=7\n..\n"
	opts := &Options{LookupUser: func(string) (uint32, error) { return 0, nil }, LookupGroup: func(string) (uint32, error) { return 0, nil }}
	want, err := ApplySpec(nil, readSpec(t, text), false, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{"\ufeff" + text, "\ufeff" + strings.ReplaceAll(text, "\n", "\r\n")} {
		got, err := ApplySpec(nil, readSpec(t, in), false, opts)
		if err != nil || dump(got) != dump(want) {
			t.Errorf("spec %q: %v\n%s\nwant\n%s", in, err, dump(got), dump(want))
		}
	}
}
