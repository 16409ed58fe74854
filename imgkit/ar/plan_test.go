package ar

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// sources used across the byte-identity tests.
var (
	srcA = cFile{"a", `int ga = 1; static int sa = 2; int common_c; __attribute__((weak)) int wk = 3;
extern int undef_x; __attribute__((weak)) extern int wundef;
__attribute__((visibility("hidden"))) int hid = 4;
int fa(void){ return ga + sa + undef_x + (wundef?1:0); }
`}
	srcB    = cFile{"b", "int fb(void){ return 2; }\nint averyveryverylongsymbolname_b = 5;\n"}
	srcC    = cFile{"c", "int c1 = 1;\n"}
	srcLong = cFile{"a_member_name_longer_than_fifteen", "int longmember(void){return 7;}\n"}
	src15   = cFile{"abcdefghijk", "int fifteen = 15;\n"} // abcdefghijk.o is 13 bytes
	srcE    = cFile{"e", "static int x;\n"}
)

type planCase struct {
	name  string
	files []string // relative to the test dir
}

func setupDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	compile(t, dir, []cFile{srcA, srcB, srcC, srcLong, src15, srcE}, "-fcommon")
	os.WriteFile(filepath.Join(dir, "notobj.txt"), []byte("hello\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "odd.txt"), []byte("abc"), 0o644)
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	run(t, dir, "cp", "c.o", "sub/c.o")
	run(t, dir, "cp", "c.o", "abcdefghijklm.o") // 15 bytes
	run(t, dir, "cp", "c.o", "abcdefghijklmn.o")
	run(t, dir, "cp", "c.o", "abcdefghijklmno.o")
	run(t, dir, "cp", "c.o", "sub/abcdefghijklm.o")
	return dir
}

var planCases = []planCase{
	{"few", []string{"a.o", "b.o", "c.o"}},
	{"long", []string{"a.o", "a_member_name_longer_than_fifteen.o", "abcdefghijklm.o", "abcdefghijklmn.o", "abcdefghijklmno.o"}},
	{"nonobject", []string{"notobj.txt", "a.o", "odd.txt", "b.o"}},
	{"onlytext", []string{"notobj.txt"}},
	{"nosyms", []string{"e.o"}},
	{"nosyms2", []string{"e.o", "odd.txt"}},
	{"dup", []string{"abcdefghijklmno.o", "c.o", "abcdefghijklmno.o"}},
	{"empty", nil},
}

// TestPlanMatchesGNUAndLLVM compares the archive of each case of
// planCases, regular and thin, with GNU ar's, llvm-ar's and llvm-ar
// --format=bsd's (no thin BSD archive) with FIXTUREGEN_LONG=1; by default
// with one of them, in turn. The cases run in parallel, each on archives
// of its own names in one directory.
func TestPlanMatchesGNUAndLLVM(t *testing.T) {
	t.Parallel()
	gnu := tooltest.Need(t, "ar")
	llvm := tooltest.Need(t, "llvm-ar")
	dir := setupDir(t)
	type tool struct {
		path   string
		compat Compat
		format Format
		extra  []string
	}
	tools := []tool{
		{gnu, CompatGNU, FormatGNU, nil},
		{llvm, CompatLLVM, FormatGNU, nil},
		{llvm, CompatLLVM, FormatBSD, []string{"--format=bsd"}},
	}
	k := 0 // the subtests so far, which take the tools in turn
	for _, c := range planCases {
		for _, thin := range []bool{false, true} {
			name := c.name
			mods := "rcsD"
			ts := tools
			if thin {
				name += "/thin"
				mods += "T"
				ts = tools[:2] // llvm-ar makes no thin BSD archive
			}
			ts = tooltest.Pick(k, ts)
			k++
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				for _, tool := range ts {
					ref := filepath.Join(dir, fmt.Sprintf("ref-%s-%v-%v-%v.a", c.name, thin, tool.compat, tool.format))
					os.Remove(ref)
					args := append(append([]string{}, tool.extra...), mods, ref)
					run(t, dir, tool.path, append(args, c.files...)...)
					want, err := os.ReadFile(ref)
					if err != nil {
						t.Fatal(err)
					}
					got := planBytes(t, fileEntries(t, dir, c.files, thin), &Options{Compat: tool.compat, Format: tool.format, Thin: thin})
					sameBytes(t, filepath.Base(tool.path)+" "+strings.Join(args[:len(args)-1], " "), got, want)
				}
			})
		}
	}
}

// TestPlanErrors checks that NewPlan rejects what cannot be written, with
// errors that wrap the package's sentinels and name the Options or Header
// field at fault.
func TestPlanErrors(t *testing.T) {
	t.Parallel()
	e := func(h Header) []Entry { return []Entry{{Header: h, Data: strings.NewReader("")}} }
	for _, c := range []struct {
		entries []Entry
		opts    *Options
		target  error
		want    string
	}{
		{e(Header{Name: "a"}), &Options{Thin: true, Format: FormatBSD}, nil, "Options.Thin with FormatBSD"},
		{e(Header{Name: ""}), nil, ErrName, "empty Name"},
		{e(Header{Name: "a\x00b"}), nil, ErrName, "NUL"},
		{e(Header{Name: "a", Size: -1}), nil, ErrHeader, "negative Size -1"},
		{e(Header{Name: "a", Uid: 1234567}), nil, ErrFieldRange, "Uid 1234567 does not fit in ar_uid (6 digits)"},
		{e(Header{Name: "a", Gid: -2}), nil, ErrFieldRange, "Gid -2 is negative"},
		{e(Header{Name: "a", Mode: 0o1000000000}), nil, ErrFieldRange, "Mode 01000000000 does not fit in ar_mode (8 octal digits)"},
		{e(Header{Name: "a", ModTime: time.Unix(-1, 0)}), nil, ErrFieldRange, "ModTime -1 is negative"},
	} {
		_, err := NewPlan(c.entries, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) || c.target != nil && !errors.Is(err, c.target) {
			t.Errorf("NewPlan(%+v, %+v): %v; want %v naming %q", c.entries[0].Header, c.opts, err, c.target, c.want)
		}
	}
}
