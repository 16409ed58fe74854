package catalog

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSplitWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  # only a comment", nil},
		{"a: makefs -t msdos a.img src", []string{"a:", "makefs", "-t", "msdos", "a.img", "src"}},
		{"a\tb  c # comment", []string{"a", "b", "c"}},
		{"a#b", []string{"a#b"}},
		{`'x y' "p \"q\" \\ \n" z\ w`, []string{"x y", `p "q" \ \n`, "z w"}},
		{`''`, []string{""}},
		{`a""b`, []string{"ab"}},
	} {
		got, err := SplitWords(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SplitWords(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{`'open`, `"open`, `a\`} {
		if got, err := SplitWords(in); err == nil {
			t.Errorf("SplitWords(%q) = %q, want an error", in, got)
		}
	}
}

func TestParseManifest(t *testing.T) {
	t.Parallel()
	m := "# header\n\nx.img: makefs -t msdos \\\n  -s 1440k x.img src\nsub/y.a: ar rcs sub/y.a 'a b.o' # note\n"
	got, err := ParseManifest(strings.NewReader(m))
	want := []Entry{
		{3, "x.img", []string{"makefs", "-t", "msdos", "-s", "1440k", "x.img", "src"}},
		{5, "sub/y.a", []string{"ar", "rcs", "sub/y.a", "a b.o"}},
	}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ParseManifest = %+v, %v; want %+v", got, err, want)
	}
	for _, tc := range []struct{ in, want string }{
		{"\nx.img makefs x.img d\n", `manifest:2: want a line "NAME: COMMAND ARGS..."`},
		{"x.img:\n", "manifest:1: x.img: no command"},
		{"/x.img: makefs /x.img d\n", `manifest:1: "/x.img": bad output name: an absolute path`},
		{"../x.img: makefs ../x.img d\n", `manifest:1: "../x.img": bad output name: outside`},
		{"a/./x.img: makefs a/x.img d\n", `manifest:1: "a/./x.img": bad output name: not a clean`},
		{"x.img: makefs y.img d\n", "manifest:1: x.img: the command line does not name its output x.img"},
		{"x.img: makefs x.img d\n\nx.img: ar r x.img\n", "manifest:3: x.img: defined twice (lines 1 and 3)"},
		{"x.img: build x.img\n", "manifest:1: x.img: command build cannot build a fixture"},
		{"x.img: makefs 'x.img d\n", "manifest:1: unterminated ' quote"},
		{"x.img: makefs x.img d \\\n", `manifest:1: '\' continues past the last line`},
	} {
		if _, err := ParseManifest(strings.NewReader(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseManifest(%q) error %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestSums(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	name := filepath.Join(dir, SumName)
	sums := map[string]Sum{
		"z.img": {3, "sha256:" + strings.Repeat("ab", 32)},
		"a.a":   {0, "sha256:" + strings.Repeat("01", 32)},
	}
	if err := WriteSums(name, sums); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(name)
	want := "a.a 0 sha256:" + strings.Repeat("01", 32) + "\nz.img 3 sha256:" + strings.Repeat("ab", 32) + "\n"
	if string(data) != want {
		t.Errorf("fixtures.sum = %q, want %q", data, want)
	}
	got, exists, err := ReadSums(name)
	if err != nil || !exists || !reflect.DeepEqual(got, sums) {
		t.Errorf("ReadSums = %v, %v, %v", got, exists, err)
	}
	if got, exists, err := ReadSums(filepath.Join(dir, "none")); err != nil || exists || len(got) != 0 {
		t.Errorf("ReadSums(missing) = %v, %v, %v", got, exists, err)
	}
	for _, bad := range []string{
		"x 1\n", "x -1 sha256:" + strings.Repeat("00", 32) + "\n", "x 1 md5:00\n",
		"x 1 sha256:" + strings.Repeat("AB", 32) + "\n", "x 1 sha256:" + strings.Repeat("zz", 32) + "\n",
		"x 1 sha256:" + strings.Repeat("00", 32) + "\nx 1 sha256:" + strings.Repeat("00", 32) + "\n",
	} {
		os.WriteFile(name, []byte(bad), 0o644)
		if _, _, err := ReadSums(name); err == nil || !strings.HasPrefix(err.Error(), "fixtures.sum:") {
			t.Errorf("ReadSums(%q) error %v", bad, err)
		}
	}
}

// FuzzParseManifest checks that no manifest makes the parser panic and that
// every entry it accepts names a clean relative output among its arguments.
func FuzzParseManifest(f *testing.F) {
	f.Add("# c\na.img: makefs -t msdos a.img 'src dir' \\\n  extra\n")
	f.Add("x: ar rcs \"x\" a.o # c\n")
	f.Fuzz(func(t *testing.T, s string) {
		entries, err := ParseManifest(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, m := range entries {
			if !ValidName(m.Name) || len(m.Args) < 2 {
				t.Fatalf("accepted %+v", m)
			}
		}
	})
}

// TestParseManifestNames checks that every output name that could not be
// written to fixtures.sum and read back as the same one file on every host
// is refused with an error naming the manifest line and the reason.
func TestParseManifestNames(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ line, want string }{
		{`'a b.img': makefs 'a b.img' d`, `manifest:1: "a b.img": bad output name: holds a space`},
		{`a\ b.img: makefs a\ b.img d`, `manifest:1: "a b.img": bad output name: holds a space`},
		{"'a\tb.img': makefs 'a\tb.img' d", `manifest:1: "a\tb.img": bad output name: holds a tab`},
		{"'a\rb.img': makefs 'a\rb.img' d", `manifest:1: "a\rb.img": bad output name: holds the blank U+000D`},
		{"'a\u00a0b.img': makefs 'a\u00a0b.img' d", `bad output name: holds the blank U+00A0`},
		{"'a\u2028b': makefs 'a\u2028b' d", `bad output name: holds the blank U+2028`},
		{"'a\x01b': makefs 'a\x01b' d", `bad output name: holds the control or invisible character U+0001`},
		{"'a\u200bb': makefs 'a\u200bb' d", `bad output name: holds the control or invisible character U+200B`},
		{"a: makefs a 'd\x00'", `manifest:1: a NUL byte`},
		{"'a\xffb': makefs 'a\xffb' d", `"a\xffb": bad output name: not valid UTF-8`},
		{`\#a.img: makefs \#a.img d`, `"#a.img": bad output name: starts with '#'`},
		{`'a\b.img': makefs 'a\b.img' d`, `bad output name: holds a backslash`},
		{`./a.img: makefs a.img d`, `"./a.img": bad output name: not a clean slash-separated path (write "a.img")`},
		{`a//b.img: makefs a/b.img d`, `"a//b.img": bad output name: not a clean`},
		{`a/: makefs a d`, `"a/": bad output name: not a clean`},
		{`a/../b: makefs b d`, `"a/../b": bad output name: not a clean`},
		{`/tmp/a: makefs /tmp/a d`, `"/tmp/a": bad output name: an absolute path`},
		{`../a: makefs ../a d`, `"../a": bad output name: outside the manifest's folder`},
		{`..: makefs .. d`, `"..": bad output name: not a file path`},
		{`.: makefs . d`, `".": bad output name: not a file path`},
		{`Manifest: makefs Manifest d`, `"Manifest": bad output name: the catalogue's own file manifest`},
		{`FIXTURES.SUM: makefs FIXTURES.SUM d`, `the catalogue's own file fixtures.sum`},
		{`.fixturegen-state: makefs .fixturegen-state d`, `the catalogue's own file .fixturegen-state`},
		{`sub/.Fixturegen-TMP-x: makefs sub/.Fixturegen-TMP-x d`, `the name of a temporary file`},
		{"a.img: makefs a.img d\nA.IMG: makefs A.IMG d", `manifest:2: A.IMG: differs from a.img (line 1) only in letter case`},
		{"sub/x: makefs sub/x d\nSUB: makefs SUB d", `manifest:2: SUB: is a folder holding the output sub/x (line 1)`},
		{"sub: makefs sub d\nsub/x: makefs sub/x d", `manifest:2: sub/x: its folder sub is the output sub (line 1)`},
		{"K.img: makefs K.img d\n\u212a.img: makefs \u212a.img d", "manifest:2: \u212a.img: differs from K.img (line 1) only in letter case"},
	} {
		_, err := ParseManifest(strings.NewReader(tc.line + "\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseManifest(%q) error %v, want %q", tc.line, err, tc.want)
			continue
		}
		if !strings.Contains(tc.line, "\n") && !strings.Contains(tc.line, "\x00") && !errors.Is(err, ErrName) {
			t.Errorf("ParseManifest(%q) error %v does not wrap ErrName", tc.line, err)
		}
	}
	// Names that are fine: folders that differ only in case hold
	// different files, and non-ASCII letters are letters.
	ok := "Sub/x: makefs Sub/x d\nsub/y: makefs sub/y d\n\u00e9t\u00e9.img: makefs \u00e9t\u00e9.img d\nc++#1.a: ar rcs c++#1.a o\n"
	if _, err := ParseManifest(strings.NewReader(ok)); err != nil {
		t.Errorf("ParseManifest(%q): %v", ok, err)
	}
}

// TestParseManifestLines checks the line syntax around names: a UTF-8
// byte-order mark at the start is skipped, CR LF endings read as LF ones
// (also before a continuing backslash), and a comment ends at the end of
// its line even when it ends in a backslash.
func TestParseManifestLines(t *testing.T) {
	t.Parallel()
	want := []Entry{
		{2, "a.img", []string{"makefs", "-t", "msdos", "a.img", "src"}},
		{4, "b.a", []string{"ar", "rcs", "b.a", "x.o"}},
	}
	for _, m := range []string{
		"\ufeff# head \\\na.img: makefs -t msdos \\\n  a.img src\nb.a: ar rcs b.a x.o\n",
		"\ufeff# head \\\r\na.img: makefs -t msdos \\\r\n  a.img src\r\nb.a: ar rcs b.a x.o\r\n",
		"# head \\\na.img: makefs -t msdos \"\\\n\" a.img src # \\\nb.a: ar rcs b.a x.o",
	} {
		got, err := ParseManifest(strings.NewReader(m))
		w := want
		if strings.Contains(m, `"\`) {
			w = []Entry{{2, "a.img", []string{"makefs", "-t", "msdos", " ", "a.img", "src"}}, want[1]}
		}
		if err != nil || !reflect.DeepEqual(got, w) {
			t.Errorf("ParseManifest(%q) = %+v, %v; want %+v", m, got, err, w)
		}
	}
	// A byte-order mark is skipped only at the start of the file.
	if _, err := ParseManifest(strings.NewReader("a: ar rcs a x\n\ufeffb: ar rcs b x\n")); err == nil || !strings.Contains(err.Error(), "manifest:2: \"\\ufeffb\": bad output name") {
		t.Errorf("a byte-order mark on line 2: error %v", err)
	}
}

// TestSumsLines checks that ReadSums skips a byte-order mark and reads CR
// LF line endings, and that WriteSums refuses a name it could not read
// back, writing nothing.
func TestSumsLines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	name := filepath.Join(dir, SumName)
	h := "sha256:" + strings.Repeat("ab", 32)
	os.WriteFile(name, []byte("\ufeffa.img 3 "+h+"\r\nb/c.a 4 "+h+"\r\n"), 0o644)
	got, _, err := ReadSums(name)
	if want := map[string]Sum{"a.img": {3, h}, "b/c.a": {4, h}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ReadSums = %q, %v; want %q", got, err, want)
	}
	for _, bad := range []string{"a b.img", "a\tb", "a\nb", "a\x00b", "#a", "./a", "\xff"} {
		err := WriteSums(name, map[string]Sum{"ok.img": {1, h}, bad: {3, h}})
		if !errors.Is(err, ErrName) {
			t.Errorf("WriteSums(%q) error %v, want ErrName", bad, err)
		}
	}
	if got, _, err := ReadSums(name); err != nil || len(got) != 2 {
		t.Errorf("after refused writes, ReadSums = %q, %v", got, err)
	}
}

// quoteWord quotes s as a word of a manifest line.
func quoteWord(s string) string {
	if !strings.Contains(s, "'") {
		return "'" + s + "'"
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`")
	return `"` + r.Replace(s) + `"`
}

// FuzzNameRoundTrip checks that every output name the manifest accepts is
// written to fixtures.sum and to the build state and read back the same:
// the tool never writes a file it cannot read.
func FuzzNameRoundTrip(f *testing.F) {
	for _, s := range []string{"a.img", "sub/b c.img", "a\tb", "#x", "x\\y", "\ufeffx", "É/é", "a\xff", "a\nb", "a\u0085b", ".fixturegen-state", "-", "a:b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		line := quoteWord(name) + ": ar rcs " + quoteWord(name) + " x.o\n"
		entries, err := ParseManifest(strings.NewReader(line))
		if err != nil {
			return
		}
		if len(entries) != 1 || entries[0].Name != name {
			t.Fatalf("ParseManifest(%q) = %+v, want the name %q", line, entries, name)
		}
		dir := t.TempDir()
		h := "sha256:" + strings.Repeat("0f", 32)
		sums := map[string]Sum{name: {7, h}, "zz.img": {1, h}}
		if err := WriteSums(filepath.Join(dir, SumName), sums); err != nil {
			t.Fatalf("WriteSums(%q): %v", name, err)
		}
		got, _, err := ReadSums(filepath.Join(dir, SumName))
		if err != nil || !reflect.DeepEqual(got, sums) {
			t.Fatalf("fixtures.sum of %q read back as %q, %v", name, got, err)
		}
		st := &state{entries: map[string]*stateEntry{name: {
			Key: strings.Repeat("1", 64), Generator: "g", Args: []string{"ar", "rcs", name},
			Inputs: map[string]inputPrint{name + "/in": {Stat: "s", Content: "c"}}, Output: outputStat{Size: 7, MtimeNs: 9, CtimeNs: 3, Dev: 4, Ino: 5}, Sum: Sum{7, h},
		}}}
		if err := st.write(filepath.Join(dir, StateName), nil); err != nil {
			t.Fatal(err)
		}
		back := readState(filepath.Join(dir, StateName))
		if !reflect.DeepEqual(back.entries, st.entries) {
			t.Fatalf("state of %q read back as %+v", name, back.entries)
		}
	})
}
