package arcmd

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/ar"
)

// parsed is the part of a Command that Parse sets from the command line,
// for comparison in tables.
func parsed(c *Command) Command {
	p := Command{Op: c.Op, RelPos: c.RelPos, After: c.After, Count: c.Count, Counted: c.Counted,
		Create: c.Create, FileMetadata: c.FileMetadata, Index: c.Index, NoIndex: c.NoIndex, Update: c.Update,
		Verbose: c.Verbose, KeepDates: c.KeepDates, FullPath: c.FullPath, Truncate: c.Truncate, Offsets: c.Offsets,
		Thin: c.Thin, Format: c.Format, FormatSet: c.FormatSet, Compat: c.Compat,
		Archive: c.Archive, ArchiveArg: c.ArchiveArg, Program: c.Program}
	if len(c.Members) > 0 || len(c.MemberArgs) > 0 {
		p.Members, p.MemberArgs = c.Members, c.MemberArgs
	}
	return p
}

// TestParse checks every operation and modifier, the relpos and count
// operands and the long options against the Command Parse gives.
func TestParse(t *testing.T) {
	t.Parallel()
	// base is "OP lib.a" as Parse reads it: the defaults, then the fields
	// a case changes.
	base := func(op byte, set func(*Command)) Command {
		c := Command{Op: op, Count: 1, Program: "ar", Archive: "lib.a", ArchiveArg: 1}
		if set != nil {
			set(&c)
		}
		return c
	}
	members := func(c *Command) { c.Members, c.MemberArgs = []string{"a.o", "b.o"}, []int{2, 3} }
	for _, tc := range []struct {
		args string
		want Command
	}{
		// The operations, with and without '-'.
		{"d lib.a", base('d', nil)},
		{"m lib.a", base('m', nil)},
		{"p lib.a", base('p', nil)},
		{"q lib.a", base('q', nil)},
		{"r lib.a", base('r', nil)},
		{"t lib.a", base('t', nil)},
		{"x lib.a", base('x', nil)},
		{"-x lib.a", base('x', nil)},
		{"tt lib.a", base('t', nil)},
		// s is the operation alone, the modifier with another; it undoes S.
		{"s lib.a", base('s', func(c *Command) { c.Index = true })},
		{"-s lib.a", base('s', func(c *Command) { c.Index = true })},
		{"rs lib.a", base('r', func(c *Command) { c.Index = true })},
		{"Ss lib.a", base('s', func(c *Command) { c.Index = true })},
		{"rS lib.a", base('r', func(c *Command) { c.NoIndex = true })},
		// Every modifier.
		{"rc lib.a", base('r', func(c *Command) { c.Create = true })},
		{"rU lib.a", base('r', func(c *Command) { c.FileMetadata = true })},
		{"rUD lib.a", base('r', nil)},
		{"rDU lib.a", base('r', func(c *Command) { c.FileMetadata = true })},
		{"ru lib.a", base('r', func(c *Command) { c.Update = true })},
		{"tv lib.a", base('t', func(c *Command) { c.Verbose = true })},
		{"xo lib.a", base('x', func(c *Command) { c.KeepDates = true })},
		{"rP lib.a", base('r', func(c *Command) { c.FullPath = true })},
		{"rf lib.a", base('r', func(c *Command) { c.Truncate = true })},
		{"tO lib.a", base('t', func(c *Command) { c.Offsets = true })},
		{"rT lib.a", base('r', func(c *Command) { c.Thin = true })},
		{"rcsDuvoPfOT lib.a", base('r', func(c *Command) {
			c.Create, c.Index, c.Update, c.Verbose, c.KeepDates, c.FullPath, c.Truncate, c.Offsets, c.Thin = true, true, true, true, true, true, true, true, true
		})},
		// Members follow the archive.
		{"rc lib.a a.o b.o", base('r', func(c *Command) { c.Create = true; members(c) })},
		// relpos: a, b and i take it with m and r, ahead of the archive.
		{"ra x.o lib.a", base('r', func(c *Command) { c.RelPos, c.After, c.ArchiveArg = "x.o", true, 2 })},
		{"rb x.o lib.a", base('r', func(c *Command) { c.RelPos, c.ArchiveArg = "x.o", 2 })},
		{"mi x.o lib.a a.o", base('m', func(c *Command) {
			c.RelPos, c.ArchiveArg, c.Members, c.MemberArgs = "x.o", 2, []string{"a.o"}, []int{3}
		})},
		{"rab x.o lib.a", base('r', func(c *Command) { c.RelPos, c.ArchiveArg = "x.o", 2 })},
		{"rba x.o lib.a", base('r', func(c *Command) { c.RelPos, c.After, c.ArchiveArg = "x.o", true, 2 })},
		// With other operations the relpos letters take no operand.
		{"ta lib.a", base('t', func(c *Command) { c.After = true })},
		{"xb lib.a", base('x', nil)},
		// count: N takes it after relpos, ahead of the archive.
		{"dN 2 lib.a", base('d', func(c *Command) { c.Counted, c.Count, c.ArchiveArg = true, 2, 2 })},
		{"xN 3 lib.a a.o", base('x', func(c *Command) {
			c.Counted, c.Count, c.ArchiveArg, c.Members, c.MemberArgs = true, 3, 2, []string{"a.o"}, []int{3}
		})},
		{"raN x.o 2 lib.a", base('r', func(c *Command) {
			c.RelPos, c.After, c.Counted, c.Count, c.ArchiveArg = "x.o", true, true, 2, 3
		})},
		// Long options, anywhere on the line.
		{"--thin rc lib.a", base('r', func(c *Command) { c.Create, c.Thin, c.ArchiveArg = true, true, 2 })},
		{"rc lib.a --thin", base('r', func(c *Command) { c.Create, c.Thin = true, true })},
		{"--format=bsd rc lib.a", base('r', func(c *Command) {
			c.Create, c.Format, c.FormatSet, c.Compat, c.ArchiveArg = true, ar.FormatBSD, true, ar.CompatLLVM, 2
		})},
		{"--format bsd rc lib.a", base('r', func(c *Command) {
			c.Create, c.Format, c.FormatSet, c.Compat, c.ArchiveArg = true, ar.FormatBSD, true, ar.CompatLLVM, 3
		})},
		{"rc lib.a --format=gnu", base('r', func(c *Command) { c.Create, c.FormatSet = true, true })},
		{"rc lib.a --format=default", base('r', func(c *Command) { c.Create, c.FormatSet = true, true })},
		{"--compat=llvm rc lib.a", base('r', func(c *Command) { c.Create, c.Compat, c.ArchiveArg = true, ar.CompatLLVM, 2 })},
		{"--compat=gnu rc lib.a", base('r', func(c *Command) { c.Create, c.ArchiveArg = true, 2 })},
		// --format=bsd asks for llvm-ar's bytes whatever --compat says.
		{"--compat=gnu --format=bsd rc lib.a", base('r', func(c *Command) {
			c.Create, c.Format, c.FormatSet, c.Compat, c.ArchiveArg = true, ar.FormatBSD, true, ar.CompatLLVM, 3
		})},
	} {
		c, err := Parse(strings.Fields(tc.args), "/w", nil)
		if err != nil {
			t.Errorf("Parse(%s): %v", tc.args, err)
			continue
		}
		if got := parsed(c); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Parse(%s) =\n%+v, want\n%+v", tc.args, got, tc.want)
		}
		if c.Dir != "/w" {
			t.Errorf("Parse(%s): Dir = %q", tc.args, c.Dir)
		}
	}
}

// TestParseErrors checks that every error of the key, the long options
// and the operands is a *UsageError with the message the command prints.
func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ args, want string }{
		{"", "ar: missing operation"},
		{"-", "ar: missing operation"},
		{"--thin", "ar: missing operation"},
		{"rcz x.a", `ar: unknown operation or modifier 'z' in "rcz"`},
		{"z x.a", `ar: unknown operation or modifier 'z' in "z"`},
		{"N x.a", `ar: no operation in "N": use one of d, m, p, q, r, s, t, x`},
		{"cv x.a", `ar: no operation in "cv": use one of d, m, p, q, r, s, t, x`},
		{"rt x.a", "ar: two different operations given: r and t"},
		{"rl x.a", "ar: modifier l is not supported"},
		{"rV x.a", "ar: modifier V is not supported"},
		{"rM x.a", "ar: modifier M is not supported"},
		{"rcN x x.a", `ar: N: bad count "x"`},
		{"rcN 0 x.a", `ar: N: bad count "0"`},
		{"dN", "ar: missing count for N"},
		{"r", "ar: missing archive"},
		{"ra x.a", "ar: missing archive"},
		{"ra", "ar: missing relpos member name"},
		{"--bogus rc x.a", "ar: unknown option --bogus"},
		{"--format=x rc x.a", "ar: --format=x: unknown format; use gnu or bsd"},
		{"rc x.a --format", "ar: --format needs a value: gnu or bsd"},
		{"--compat=x rc x.a", "ar: --compat=x: unknown; use gnu or llvm"},
	} {
		_, err := Parse(strings.Fields(tc.args), "", nil)
		var ue *UsageError
		if !errors.As(err, &ue) || err.Error() != tc.want {
			t.Errorf("Parse(%s) error %#v, want the usage error %q", tc.args, err, tc.want)
		}
	}
}

// TestParseRanlib checks that ranlib gives one "ar sc" Command per
// archive, with its index in the command line, and its usage errors.
func TestParseRanlib(t *testing.T) {
	t.Parallel()
	cmds, err := ParseRanlib([]string{"-U", "a.a", "-t", "-", "b.a", "-D"}, "/w", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []Command
	for _, c := range cmds {
		got = append(got, parsed(c))
	}
	want := []Command{
		{Op: 's', Index: true, Create: true, Count: 1, FileMetadata: false, Archive: "a.a", ArchiveArg: 1, Program: "ranlib"},
		{Op: 's', Index: true, Create: true, Count: 1, FileMetadata: false, Archive: "-", ArchiveArg: 3, Program: "ranlib"},
		{Op: 's', Index: true, Create: true, Count: 1, FileMetadata: false, Archive: "b.a", ArchiveArg: 4, Program: "ranlib"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseRanlib =\n%+v, want\n%+v", got, want)
	}
	if cmds, err := ParseRanlib([]string{"-U", "a.a"}, "", nil); err != nil || !cmds[0].FileMetadata {
		t.Errorf("ParseRanlib(-U a.a) = %+v, %v; want FileMetadata", cmds, err)
	}
	for _, tc := range []struct{ args, want string }{
		{"", "ranlib: missing archive"},
		{"-D -t", "ranlib: missing archive"},
		{"-z x.a", "ranlib: unknown option -z"},
	} {
		_, err := ParseRanlib(strings.Fields(tc.args), "", nil)
		var ue *UsageError
		if !errors.As(err, &ue) || err.Error() != tc.want {
			t.Errorf("ParseRanlib(%s) error %#v, want the usage error %q", tc.args, err, tc.want)
		}
	}
}

// TestInputs checks that only r and q read files, resolved against Dir,
// and that Writes tells the editing operations from the reading ones.
func TestInputs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args   string
		inputs []string
		writes bool
	}{
		{"rc lib.a a.o /abs/b.o", []string{"/w/a.o", "/abs/b.o"}, true},
		{"--thin qc lib.a sub/../a.o", []string{"/w/a.o"}, true},
		{"rb x.o lib.a a.o", []string{"/w/a.o"}, true},
		{"d lib.a a.o", nil, true},
		{"m lib.a a.o", nil, true},
		{"s lib.a", nil, true},
		{"t lib.a a.o", nil, false},
		{"p lib.a a.o", nil, false},
		{"x lib.a a.o", nil, false},
	} {
		c, err := Parse(strings.Fields(tc.args), "/w", nil)
		if err != nil {
			t.Fatalf("Parse(%s): %v", tc.args, err)
		}
		if got := c.Inputs(); !reflect.DeepEqual(got, tc.inputs) {
			t.Errorf("Parse(%s).Inputs() = %q, want %q", tc.args, got, tc.inputs)
		}
		if c.Writes() != tc.writes {
			t.Errorf("Parse(%s).Writes() = %v", tc.args, !tc.writes)
		}
	}
}

// TestLetterLists checks Modifiers and LongOptions against what Parse
// accepts, so that a help built from them lists every letter and option
// and no other: after the operation r, each ASCII letter that is no
// operation is accepted exactly when Modifiers holds it, and each long
// option is one Parse knows.
func TestLetterLists(t *testing.T) {
	t.Parallel()
	for ch := byte('A'); ch <= 'z'; ch++ {
		if !('A' <= ch && ch <= 'Z' || 'a' <= ch && ch <= 'z') || strings.IndexByte(Operations, ch) >= 0 {
			continue
		}
		_, err := (&Command{}).parseKey("r" + string(ch))
		if listed := strings.IndexByte(Modifiers, ch) >= 0; listed != (err == nil) {
			t.Errorf("modifier %c: listed in Modifiers %v, parseKey error %v", ch, listed, err)
		}
	}
	for _, name := range LongOptions {
		known := false // as --name or --name=value
		for _, arg := range []string{"--" + name, "--" + name + "=gnu"} {
			_, _, err := (&Command{}).parseLongOptions([]string{arg, "x"})
			known = known || err == nil || !strings.Contains(err.Error(), "unknown option")
		}
		if !known {
			t.Errorf("LongOptions lists %s, which Parse does not know", name)
		}
	}
}
