package catalog

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestStateFile writes and reads back the state, names with blanks, tabs
// and newlines included, inputs with and without content fingerprints,
// and checks that a damaged or older (v4, whose lines have no change time,
// device or inode of the output) file is empty.
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
	for _, bad := range []string{"", "{\"Version\": 2}\n", string(data[:len(data)/2]) + "\n", stateHeader + "x\ty\n"} {
		os.WriteFile(name, []byte(bad), 0o644)
		if got := readState(name); len(got.entries) > 1 {
			t.Errorf("readState(%q) = %v", bad, got.entries)
		}
	}
}
