package catalog

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestStateFile writes and reads back the state, names with blanks, tabs
// and newlines included, and checks that a damaged or older file is
// empty.
func TestStateFile(t *testing.T) {
	t.Parallel()
	name := filepath.Join(t.TempDir(), StateName)
	st := &state{entries: map[string]*stateEntry{
		"a.img": {Key: "k1", Generator: "exe sha256:00", Args: []string{"makefs", "-t", "msdos", "a.img", "src dir"},
			Inputs: map[string]string{"src dir": "f1", "../x\ty": "absent"}, Size: 3, MtimeNs: -5, Sum: Sum{3, "sha256:ab"}},
		"odd\tname\n.a": {Key: "k2", Generator: "vcs \"q\"", Args: []string{"ar", "rcs", "odd\tname\n.a"}, Inputs: map[string]string{}, Sum: Sum{0, "sha256:cd"}},
	}}
	if err := st.write(name, nil); err != nil {
		t.Fatal(err)
	}
	got := readState(name)
	if !reflect.DeepEqual(got.entries, st.entries) {
		t.Errorf("read back %+v, want %+v", got.entries, st.entries)
	}
	data, _ := os.ReadFile(name)
	for _, bad := range []string{"", "{\"Version\": 2}\n", string(data[:len(data)/2]) + "\n", stateHeader + "x\ty\n"} {
		os.WriteFile(name, []byte(bad), 0o644)
		if got := readState(name); len(got.entries) > 1 {
			t.Errorf("readState(%q) = %v", bad, got.entries)
		}
	}
}
