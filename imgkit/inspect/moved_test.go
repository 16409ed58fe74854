package inspect

import (
	"bytes"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fixturegen/fixturegen/imgkit/cd9660"
	"github.com/fixturegen/fixturegen/imgkit/ffs"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
	"github.com/fixturegen/fixturegen/imgkit/msdos"
)

// TestDiffMovedData checks that a file whose contents stay the same while
// its data moves (the file before it grew) is reported as moved from the
// byte ranges its data takes in the first image to those in the second,
// in every format, and that no offset of -1 is printed.
func TestDiffMovedData(t *testing.T) {
	t.Parallel()
	build := map[string]func(fstree.Source) ([]byte, error){
		"msdos": func(s fstree.Source) ([]byte, error) {
			return msdos.Build(s, &msdos.Options{Size: 1440 << 10, Timestamp: t0})
		},
		"ffs": func(s fstree.Source) ([]byte, error) {
			return ffs.Build(s, &ffs.Options{Size: 256 << 10, BSize: 4096, FSize: 512, Timestamp: t0})
		},
		"cd9660": func(s fstree.Source) ([]byte, error) { return cd9660.Build(s, &cd9660.Options{Timestamp: t0}) },
	}
	for _, name := range []string{"msdos", "ffs", "cd9660", "ar"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			img := func(first int) []byte {
				if name == "ar" {
					return arArchive(t, []member{{"a.txt", strings.Repeat("a", first), 0}, {"b.txt", "bee\n", 0}})
				}
				fsys := fstest.MapFS{
					"a.txt": &fstest.MapFile{Data: bytes.Repeat([]byte("a"), first), Mode: 0o644, ModTime: t0},
					"b.txt": &fstest.MapFile{Data: []byte("bee\n"), Mode: 0o644, ModTime: t0},
				}
				b, err := build[name](fstree.FS(fsys))
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			a, b := img(10), img(20000)
			rep, out := diff(t, a, b)
			if strings.Contains(out, "0x-") {
				t.Errorf("a negative offset in\n%s", out)
			}
			var moved *Change
			for i, c := range rep.Changes {
				if c.Kind == KindMoved && strings.HasSuffix(strings.ToLower(c.Path), "b.txt") {
					moved = &rep.Changes[i]
				}
			}
			if moved == nil {
				t.Fatalf("b.txt not reported as moved:\n%s", out)
			}
			f := byName(name)
			wantA := fieldPlace(t, f, a, moved.Path, moved.Field)
			wantB := fieldPlace(t, f, b, moved.Path, moved.Field)
			want := "  " + moved.Path + ": moved from " + wantA + " to " + wantB + " (" + moved.Field + ")"
			wantLines(t, out, want)
			t.Logf("%s", want)
		})
	}
}

// fieldPlace returns where the field name of path lies in img, as the
// report says it: "byte 0x..." or "bytes 0x...-0x...".
func fieldPlace(t *testing.T, f *describe.Kind, img []byte, path, name string) string {
	t.Helper()
	fields, err := f.Fields(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		t.Fatal(err)
	}
	for _, fl := range fields {
		if fl.Path != path || fl.Name != name {
			continue
		}
		if fl.Offset >= 0 {
			return "byte " + hexOff(fl.Offset)
		}
		var parts []string
		for _, s := range fl.Spans {
			parts = append(parts, hexOff(s[0])+"-"+hexOff(s[1]-1))
		}
		if len(parts) == 0 {
			t.Fatalf("%s %s: no offset and no spans", path, name)
		}
		return "bytes " + strings.Join(parts, ", ")
	}
	t.Fatalf("no field %s %s", path, name)
	return ""
}

// TestPlace checks how a moved field's place is written: an offset, a few
// spans, or the first spans of many and what the rest add up to.
func TestPlace(t *testing.T) {
	t.Parallel()
	many := [][2]int64{{0x800, 0xa00}, {0x1000, 0x1200}, {0x2000, 0x2001}, {0x3000, 0x3200}, {0x4000, 0x4400}}
	for _, c := range []struct {
		off   int64
		spans [][2]int64
		want  string
	}{
		{0x1a, nil, "byte 0x1a"},
		{-1, nil, "no bytes"},
		{-1, many[:1], "bytes 0x800-0x9ff"},
		{-1, many[:3], "bytes 0x800-0x9ff, 0x1000-0x11ff, 0x2000-0x2000"},
		{-1, many, "bytes 0x800-0x9ff, 0x1000-0x11ff, 0x2000-0x2000 and 2 more ranges (1536 bytes)"},
	} {
		if got := place(c.off, c.spans); got != c.want {
			t.Errorf("place(%d, %v) = %q, want %q", c.off, c.spans, got, c.want)
		}
	}
}
