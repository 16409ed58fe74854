package catalog

import (
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestStateFile writes and reads back the state, names with blanks, tabs
// and newlines included, inputs with and without content fingerprints;
// checks that a file with another first line (an older version's, such as
// v4, whose lines have no change time, device or inode of the output, or
// none) reads as empty; and that in a file with the header each line that
// does not parse (cut short, edited) is dropped and every other line kept.
func TestStateFile(t *testing.T) {
	t.Parallel()
	name := filepath.Join(t.TempDir(), StateName)
	st := &state{entries: map[string]*stateEntry{
		"a.img": {Key: "k1", Generator: "exe sha256:00", Args: []string{"makefs", "-t", "msdos", "a.img", "src dir"},
			Inputs: map[string]inputPrint{"src dir": {"f1", "c1"}, "../x\ty": {Stat: "absent"}, "not hashed": {"s", ""}}, Output: outputStat{Size: 3, MtimeNs: -5, CtimeNs: 7, Dev: 1 << 63, Ino: 9}, Sum: Sum{3, "sha256:ab"}},
		"odd\tname\n.a": {Key: "k2", Generator: "vcs \"q\"", Args: []string{"ar", "rcs", "odd\tname\n.a"}, Inputs: map[string]inputPrint{}, Sum: Sum{0, "sha256:cd"}},
	}}
	if err := st.write(name, nil); err != nil {
		t.Fatal(err)
	}
	got := readState(name)
	if !reflect.DeepEqual(got.entries, st.entries) {
		t.Errorf("read back %+v, want %+v", got.entries, st.entries)
	}
	data, _ := os.ReadFile(name)
	v4 := "# fixturegen build state v4: what the last build saw. Do not commit; safe to delete.\n" +
		`"a"	k	2	5	2	sha256:ab	"g"	"ar\x00rcs\x00a\x00x"	"x\x00fp\x00"` + "\n"
	os.WriteFile(name, []byte(v4), 0o644)
	if got := readState(name); len(got.entries) != 0 {
		t.Errorf("a v4 state file read as %v, want nothing", got.entries)
	}
	lines := strings.SplitAfter(strings.TrimPrefix(string(data), stateHeader), "\n")
	if len(lines) != 3 || lines[2] != "" || !strings.HasPrefix(lines[0], `"a.img"`) {
		t.Fatalf("the state file's lines: %q", lines)
	}
	a, odd := lines[0], lines[1]
	only := func(names ...string) map[string]*stateEntry {
		m := map[string]*stateEntry{}
		for _, n := range names {
			m[n] = st.entries[n]
		}
		return m
	}
	for _, tc := range []struct {
		what, file string
		want       map[string]*stateEntry
	}{
		{"an empty file", "", only()},
		{"another format", "{\"Version\": 2}\n", only()},
		{"the header cut short", stateHeader[:20], only()},
		{"the file cut short in the second line", stateHeader + a + odd[:len(odd)/2], only("a.img")},
		{"the file cut short in the first line", stateHeader + a[:len(a)/2], only()},
		{"a line of two fields before a good one", stateHeader + "x\ty\n" + odd, only("odd\tname\n.a")},
		{"a number that is not one", stateHeader + strings.Replace(a, "\t3\t", "\tthree\t", 1) + odd, only("odd\tname\n.a")},
		{"a name not quoted", stateHeader + a + strings.Replace(odd, `"odd`, `odd`, 1), only("a.img")},
	} {
		if err := os.WriteFile(name, []byte(tc.file), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := readState(name); !reflect.DeepEqual(got.entries, tc.want) {
			t.Errorf("%s: read %v, want %v", tc.what, slices.Sorted(maps.Keys(got.entries)), slices.Sorted(maps.Keys(tc.want)))
		}
	}
}
