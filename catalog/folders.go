package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// madeFolders are the output folders one run made, so that those left
// empty when it ends (every output in them failed) are removed again.
type madeFolders struct {
	mu    sync.Mutex
	paths []string // in the order made: a folder before the folders in it
}

// make makes the folders of the output name in the folder dir where the
// entries run that do not exist yet ("out" and "out/sub" of
// "out/sub/a.img"), each with mode 0777 less the umask, as mkdir -p
// does, and remembers them. Folders that exist are left as they are;
// plan has refused symbolic links among them (outputFolderLink). A file
// where a folder should be is an error that names it.
func (f *madeFolders) make(dir, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := dir
	for _, c := range strings.Split(path.Dir(name), "/") {
		if c == "." {
			break
		}
		p = filepath.Join(p, c)
		err := os.Mkdir(p, 0o777)
		if err == nil {
			f.paths = append(f.paths, p)
			continue
		}
		if fi, serr := os.Stat(p); errors.Is(err, fs.ErrExist) && serr == nil && fi.IsDir() {
			continue
		}
		rel := display(dir, p)
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("cannot make the output folder %s: a file is in its place", rel)
		}
		return fmt.Errorf("cannot make the output folder %s: %v", rel, err)
	}
	return nil
}

// removeEmpty removes the folders made that are empty, the ones inside
// first; a folder that holds anything stays.
func (f *madeFolders) removeEmpty() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range slices.Backward(f.paths) {
		os.Remove(p)
	}
	f.paths = nil
}

// removeEmptyFolders removes the folders of the output names in the
// catalogue folder dir ("out/sub", then "out", for "out/sub/a.img") that
// are empty, for Clean: build makes them again when it needs them. dir
// itself stays, and so does a folder that holds anything.
func removeEmptyFolders(dir string, entries []Entry) {
	var folders []string
	for _, m := range entries {
		for d := path.Dir(m.Name); d != "."; d = path.Dir(d) {
			folders = append(folders, d)
		}
	}
	// The deepest first, so that a folder emptied of its folders goes too.
	slices.SortFunc(folders, func(a, b string) int {
		if n := strings.Count(b, "/") - strings.Count(a, "/"); n != 0 {
			return n
		}
		return strings.Compare(a, b)
	})
	for _, d := range slices.Compact(folders) {
		os.Remove(filepath.Join(dir, filepath.FromSlash(d)))
	}
}
