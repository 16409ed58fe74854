package fstree

import (
	"strings"
	"testing"
)

// FuzzReadSpec checks that ReadSpec and a spec-only ApplySpec never panic,
// and that every error they return names the spec file and a line. The
// seed corpus is in testdata/fuzz/FuzzReadSpec.
func FuzzReadSpec(f *testing.F) {
	f.Add(relSpec)
	f.Add(". type=dir mode=0755 uid=0 gid=0\n./a type=file mode=0644 uid=0 gid=0 size=1\n")
	f.Add("/set type=file\nx\\s\\M-a\\^? flags=uchg \\\n mode=u+s\n..\n..\n")
	opts := &Options{
		LookupUser:  func(string) (uint32, error) { return 1, nil },
		LookupGroup: func(string) (uint32, error) { return 1, nil },
	}
	f.Fuzz(func(t *testing.T, text string) {
		spec, err := ReadSpec(strings.NewReader(text), "fuzz.mtree")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.mtree:") {
				t.Fatalf("error without file:line: %v", err)
			}
			return
		}
		// contents= would read host files; drop it for ApplySpec.
		if strings.Contains(text, "contents") {
			return
		}
		tr, err := ApplySpec(nil, spec, false, opts)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.mtree:") {
				t.Fatalf("error without file:line: %v", err)
			}
			return
		}
		tr.Walk(func(p string, n *Node) error {
			if n.Path() != p || (n.Type != TypeDir && len(n.Children) > 0) {
				t.Fatalf("bad node at %s", p)
			}
			return nil
		})
	})
}
