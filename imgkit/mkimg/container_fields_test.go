package mkimg

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// TestContainerFields checks that a container disk's fields begin with
// its header's, named as the format's specification names them, at
// their offsets in the file, with the values the header holds.
func TestContainerFields(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inputs(t, dir)
	for _, c := range []struct {
		format, path, name string
		off, size          int64
		value              string
	}{
		{"qcow", "qcow header", "cluster_bits", 32, 1, "12 (0xc)"},
		{"qcow2", "qcow2 header", "version", 4, 4, "2 (0x2)"},
		{"qcow2", "qcow2 header", "refcount_table_clusters", 56, 4, "1 (0x1)"},
		{"vmdk", "VMDK SparseExtentHeader", "numGTEsPerGT", 44, 4, "512"},
		{"vmdks", "VMDK SparseExtentHeader", "compressAlgorithm", 77, 2, "1"},
	} {
		t.Run(c.format+"/"+c.name, func(t *testing.T) {
			t.Parallel()
			disk := mustBuild(t, parseIn(t, dir, strings.Fields("-y -f "+c.format+" -s gpt -p efi:=a -p freebsd-ufs::64k")))
			fields, err := Fields(bytes.NewReader(disk), int64(len(disk)), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(fields) == 0 || fields[0].Path != c.path {
				t.Fatalf("the first field is not the %s's: %+v", c.path, fields[:min(1, len(fields))])
			}
			for _, f := range fields {
				if f.Path == c.path && f.Name == c.name {
					if f.Offset != c.off || f.Size != c.size || f.Value != c.value {
						t.Errorf("%s %s: offset %d size %d value %q; want %d, %d, %q", c.path, c.name, f.Offset, f.Size, f.Value, c.off, c.size, c.value)
					}
					return
				}
			}
			t.Errorf("no field %s %s", c.path, c.name)
		})
	}
}

// containerField returns the field name of the record path of the
// container in r (size bytes), as the container's reader names and
// places it (Fields), and its bytes: the tests of mkimg's containers
// find the records' fields so, without their own copy of the records.
func containerField(t *testing.T, r io.ReaderAt, size int64, path, name string) (describe.Field, []byte) {
	t.Helper()
	c, _, err := openContainer(r, size)
	if err != nil || c == nil {
		t.Fatalf("no container: %v", err)
	}
	defer c.Close()
	for _, f := range c.Fields() {
		if f.Path == path && f.Name == name {
			b := make([]byte, f.Size)
			if _, err := r.ReadAt(b, f.Offset); err != nil {
				t.Fatal(err)
			}
			return f, b
		}
	}
	t.Fatalf("the container has no field %s %s", path, name)
	return describe.Field{}, nil
}

// fileField is containerField of the container file name.
func fileField(t *testing.T, name, path, field string) (describe.Field, []byte) {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return containerField(t, f, fi.Size(), path, field)
}
