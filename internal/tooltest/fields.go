package tooltest

import (
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// IndexFields checks what the format contract promises of a Fields list
// for an image of size bytes (each (Path, Name) pair once; every field,
// and every span of a data field, inside the image) and returns the
// fields by [Path, Name].
func IndexFields(t testing.TB, fields []describe.Field, size int64) map[[2]string]describe.Field {
	t.Helper()
	byKey := make(map[[2]string]describe.Field, len(fields))
	for _, f := range fields {
		k := [2]string{f.Path, f.Name}
		if _, dup := byKey[k]; dup {
			t.Errorf("%s %s listed twice", f.Path, f.Name)
		}
		byKey[k] = f
		if f.Offset < -1 || f.Offset+f.Size > size {
			t.Errorf("%s %s: offset %d size %d outside the image", f.Path, f.Name, f.Offset, f.Size)
		}
		for _, s := range f.Spans {
			if s[0] < 0 || s[1] > size || s[0] >= s[1] {
				t.Errorf("%s %s: bad span %v", f.Path, f.Name, s)
			}
		}
	}
	return byKey
}
