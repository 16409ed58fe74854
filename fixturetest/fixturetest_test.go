package fixturetest

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/ar"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/msdos"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the scripts run fixturegen, as a user's TestMain would.
func TestMain(m *testing.M) {
	testscript.Main(m, Programs())
}

// TestScripts runs testdata/*.txtar with the commands of this package. Each
// script starts with a.img and b.img (FAT12 images that differ in the
// contents of one file), and x.a (an archive of two text members).
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:  "testdata",
		Cmds: Cmds(),
		Setup: func(e *testscript.Env) error {
			if err := writeFAT(filepath.Join(e.WorkDir, "a.img"), "hello\n"); err != nil {
				return err
			}
			if err := writeFAT(filepath.Join(e.WorkDir, "b.img"), "hellp\n"); err != nil {
				return err
			}
			return writeAr(filepath.Join(e.WorkDir, "x.a"))
		},
	})
}

func writeFAT(name, hello string) error {
	t0 := time.Unix(1700000000, 0).UTC()
	fsys := fstest.MapFS{
		"hello.txt":            {Data: []byte(hello), Mode: 0o644, ModTime: t0},
		"A long file name.txt": {Data: []byte("long\n"), Mode: 0o644, ModTime: t0},
		"dir":                  {Mode: 0o755 | os.ModeDir, ModTime: t0},
		"dir/nested.txt":       {Data: []byte("nested\n"), Mode: 0o644, ModTime: t0},
	}
	return msdos.WriteFile(name, fstree.FS(fsys), &msdos.Options{Size: 1440 << 10, Timestamp: t0})
}

func writeAr(name string) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	w := ar.NewWriter(f, nil)
	for _, m := range []struct{ name, data string }{{"one.txt", "one\n"}, {"two.txt", "two\n"}} {
		if err := w.WriteHeader(&ar.Header{Name: m.name, Mode: 0o644, Size: int64(len(m.data))}); err != nil {
			return err
		}
		if _, err := w.Write([]byte(m.data)); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	return f.Close()
}
