package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The hidden command test-write stands in for a format in the tests of
// build (here and in testscripts/build*.txtar): "test-write FILE TEXT..."
// writes the TEXT words, one a line, to FILE, and "test-write FILE" with
// SOURCE_DATE_EPOCH set writes that value, to show what build passes on.
func init() {
	register(command{
		Name:   "test-write",
		Usage:  "test-write file [text ...]",
		hidden: true,
		Run: func(e *env, args []string) error {
			if len(args) == 0 {
				return usagef("test-write: no file")
			}
			text := strings.Join(args[1:], "\n") + "\n"
			if len(args) == 1 {
				text = "SOURCE_DATE_EPOCH=" + e.getenv("SOURCE_DATE_EPOCH") + "\n"
			}
			return os.WriteFile(e.abs(args[0]), []byte(text), 0o644)
		},
	})
}

func TestSplitWords(t *testing.T) {
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
		got, err := splitWords(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("splitWords(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{`'open`, `"open`, `a\`} {
		if got, err := splitWords(in); err == nil {
			t.Errorf("splitWords(%q) = %q, want an error", in, got)
		}
	}
}

func TestParseManifest(t *testing.T) {
	m := "# header\n\nx.img: makefs -t msdos \\\n  -s 1440k x.img src\nsub/y.a: ar rcs sub/y.a 'a b.o' # note\n"
	got, err := parseManifest(strings.NewReader(m))
	want := []manifestEntry{
		{3, "x.img", []string{"makefs", "-t", "msdos", "-s", "1440k", "x.img", "src"}},
		{5, "sub/y.a", []string{"ar", "rcs", "sub/y.a", "a b.o"}},
	}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("parseManifest = %+v, %v; want %+v", got, err, want)
	}
	for _, tc := range []struct{ in, want string }{
		{"\nx.img makefs x.img d\n", "manifest:2: want NAME: COMMAND ARGS..."},
		{"x.img:\n", "manifest:1: x.img: no command"},
		{"/x.img: makefs /x.img d\n", `manifest:1: "/x.img": output name must be`},
		{"../x.img: makefs ../x.img d\n", `manifest:1: "../x.img": output name must be`},
		{"a/./x.img: makefs a/x.img d\n", `manifest:1: "a/./x.img": output name must be`},
		{"x.img: makefs y.img d\n", "manifest:1: x.img: the command line does not name its output x.img"},
		{"x.img: makefs x.img d\n\nx.img: ar r x.img\n", "manifest:3: x.img: already built at line 1"},
		{"x.img: build x.img\n", "manifest:1: x.img: command build cannot build a fixture"},
		{"x.img: makefs 'x.img d\n", "manifest:1: unterminated ' quote"},
		{"x.img: makefs x.img d \\\n", `manifest:1: '\' continues past the last line`},
	} {
		if _, err := parseManifest(strings.NewReader(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parseManifest(%q) error %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestSums(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, sumName)
	sums := map[string]sumEntry{
		"z.img": {3, "sha256:" + strings.Repeat("ab", 32)},
		"a.a":   {0, "sha256:" + strings.Repeat("01", 32)},
	}
	if err := writeSums(name, sums); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(name)
	want := "a.a 0 sha256:" + strings.Repeat("01", 32) + "\nz.img 3 sha256:" + strings.Repeat("ab", 32) + "\n"
	if string(data) != want {
		t.Errorf("fixtures.sum = %q, want %q", data, want)
	}
	got, err := readSums(name)
	if err != nil || !reflect.DeepEqual(got, sums) {
		t.Errorf("readSums = %v, %v", got, err)
	}
	for _, bad := range []string{
		"x 1\n", "x -1 sha256:" + strings.Repeat("00", 32) + "\n", "x 1 md5:00\n",
		"x 1 sha256:" + strings.Repeat("AB", 32) + "\n", "x 1 sha256:" + strings.Repeat("zz", 32) + "\n",
		"x 1 sha256:" + strings.Repeat("00", 32) + "\nx 1 sha256:" + strings.Repeat("00", 32) + "\n",
	} {
		os.WriteFile(name, []byte(bad), 0o644)
		if _, err := readSums(name); err == nil || !strings.HasPrefix(err.Error(), "fixtures.sum:") {
			t.Errorf("readSums(%q) error %v", bad, err)
		}
	}
}

func TestBuild(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module m\n"), 0o644)
	fx := filepath.Join(root, "fixtures")
	os.MkdirAll(filepath.Join(root, "deep", "er"), 0o755)
	os.MkdirAll(fx, 0o755)
	os.WriteFile(filepath.Join(fx, manifestName), []byte("a.img: test-write a.img hello world\nb.img: test-write b.img\n"), 0o644)
	runIn := func(dir string, args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		e := &env{Stdout: &stdout, Stderr: &stderr, Dir: dir, Getenv: func(k string) string {
			if k == "SOURCE_DATE_EPOCH" {
				return "1234"
			}
			return ""
		}}
		code := runMain(e, append([]string{"build"}, args...))
		return code, stdout.String(), stderr.String()
	}
	code, _, stderr := runIn(filepath.Join(root, "deep", "er"))
	if code != 1 || !strings.Contains(stderr, "a.img: not in fixtures.sum") || !strings.Contains(stderr, "b.img: not in fixtures.sum") {
		t.Errorf("build without sums: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runIn(filepath.Join(root, "deep"), "-update", "-q"); code != 0 {
		t.Fatalf("build -update: exit %d, %s", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(fx, "b.img")); string(b) != "SOURCE_DATE_EPOCH=\n" {
		t.Errorf("SOURCE_DATE_EPOCH reached the command: %q", b)
	}
	if code, stdout, stderr := runIn(root); code != 0 || !strings.Contains(stdout, "a.img 12 sha256:") {
		t.Errorf("build after -update: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// A changed output is a mismatch naming both sums.
	os.WriteFile(filepath.Join(fx, manifestName), []byte("a.img: test-write a.img hello there\nb.img: test-write b.img\n"), 0o644)
	code, _, stderr = runIn(root, "-C", "fixtures", "a.img")
	if code != 1 || !strings.HasPrefix(stderr, "fixturegen: build: a.img: sum mismatch (have 12 sha256:") || !strings.Contains(stderr, ", want 12 sha256:") {
		t.Errorf("mismatch: exit %d, stderr %q", code, stderr)
	}
	// Updating one entry keeps the others.
	if code, _, stderr := runIn(root, "-update", "a.img"); code != 0 {
		t.Fatalf("build -update a.img: %d %s", code, stderr)
	}
	sums, _ := readSums(filepath.Join(fx, sumName))
	if len(sums) != 2 {
		t.Errorf("sums after a partial update: %v", sums)
	}
	// A failing entry names the manifest line; an unknown name is an error.
	os.WriteFile(filepath.Join(fx, manifestName), []byte("# c\nc.img: nosuchcmd c.img\n"), 0o644)
	if code, _, stderr := runIn(root); code != 1 || stderr != "fixturegen: build: manifest:2: c.img: unknown command \"nosuchcmd\"\n" {
		t.Errorf("bad entry: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runIn(root, "zzz"); code != 1 || !strings.Contains(stderr, "zzz: not in manifest") {
		t.Errorf("unknown name: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runIn(t.TempDir()); code != 1 || !strings.Contains(stderr, "no fixtures/manifest") {
		t.Errorf("no manifest: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runIn(root, "-bogus"); code != 2 || !strings.Contains(stderr, "flag provided but not defined: -bogus") {
		t.Errorf("bad flag: exit %d, stderr %q", code, stderr)
	}
}

// FuzzParseManifest checks that no manifest makes the parser panic and that
// every entry it accepts names a clean relative output among its arguments.
func FuzzParseManifest(f *testing.F) {
	f.Add("# c\na.img: makefs -t msdos a.img 'src dir' \\\n  extra\n")
	f.Add("x: ar rcs \"x\" a.o # c\n")
	f.Fuzz(func(t *testing.T, s string) {
		entries, err := parseManifest(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, m := range entries {
			if !validName(m.Name) || len(m.Args) < 2 {
				t.Fatalf("accepted %+v", m)
			}
		}
	})
}
