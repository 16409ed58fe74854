package catalog

import (
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
		{"/x.img: makefs /x.img d\n", `manifest:1: "/x.img": output name must be`},
		{"../x.img: makefs ../x.img d\n", `manifest:1: "../x.img": output name must be`},
		{"a/./x.img: makefs a/x.img d\n", `manifest:1: "a/./x.img": output name must be`},
		{"x.img: makefs y.img d\n", "manifest:1: x.img: the command line does not name its output x.img"},
		{"x.img: makefs x.img d\n\nx.img: ar r x.img\n", "manifest:3: x.img: already built at line 1"},
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
