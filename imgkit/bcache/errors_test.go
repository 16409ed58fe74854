package bcache

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestCreateErrorsNameTarget checks that Create's errors name the image's
// path as given, never the temporary file or the package, and keep their
// cause for errors.Is.
func TestCreateErrorsNameTarget(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path, want string
		is         error
	}{
		{filepath.Join(dir, "missing", "x.img"), "create " + filepath.Join(dir, "missing", "x.img") + ": no such file or directory", fs.ErrNotExist},
		{filepath.Join(file, "x.img"), "create " + filepath.Join(file, "x.img") + ": not a directory", nil},
		{dir, dir + ": the image's path is a directory", ErrNotFile},
	} {
		_, err := Create(c.path, 4096, nil)
		if err == nil || err.Error() != c.want {
			t.Errorf("Create(%s): error %v, want %q", c.path, err, c.want)
		}
		if c.is != nil && !errors.Is(err, c.is) {
			t.Errorf("Create(%s): error %v is not %v", c.path, err, c.is)
		}
	}
	if names := listDir(t, dir); len(names) != 1 {
		t.Errorf("left %q", names)
	}
}
