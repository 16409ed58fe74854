package tempfile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fixturegen/fixturegen/internal/filelock"
	"github.com/fixturegen/fixturegen/internal/termline"
)

// Leftovers returns the temporary files and directories beside target
// that are named for it (Pattern(target), with anything after the dash:
// those of the writers of target and of what they spool) and that no live
// process holds, sorted: what killed runs writing target left there. A
// file Create made and a live process still has open is locked, so it is
// not listed.
func Leftovers(target string) []string {
	dir := filepath.Dir(target)
	prefix := strings.TrimSuffix(Pattern(target), "*")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var found []string
	for _, de := range ents {
		if strings.HasPrefix(de.Name(), prefix) {
			found = append(found, filepath.Join(dir, de.Name()))
		}
	}
	slices.Sort(found)
	return found
}

// Removed is what RemoveStale removed: the paths, as the caller gave them,
// and the bytes of their regular files.
type Removed struct {
	Paths []string
	Bytes int64
}

// RemoveStale removes those of paths (temporary files and directories)
// that no live process holds and returns what it removed. A regular file
// or directory is removed while RemoveStale holds its lock, so a writer
// cannot take it up in between; a file that another process has locked is
// kept, as is every file on a system without locks (filelock.Supported),
// which cannot tell. A path that cannot be removed is left and not
// counted.
func RemoveStale(paths []string) Removed {
	var r Removed
	for _, p := range paths {
		if n, ok := removeStale(p); ok {
			r.Paths = append(r.Paths, p)
			r.Bytes += n
		}
	}
	return r
}

// removeStale removes p unless a live process holds it, and returns the
// bytes of its regular files.
func removeStale(p string) (int64, bool) {
	fi, err := os.Lstat(p)
	if err != nil {
		return 0, false
	}
	if fi.Mode().IsRegular() || fi.IsDir() {
		if !filelock.Supported {
			return 0, false
		}
		// O_NONBLOCK: a file swapped for a FIFO since Lstat does not
		// hold the open.
		f, err := os.OpenFile(p, os.O_RDONLY|openNoFollow, 0)
		if err != nil {
			return 0, false
		}
		defer f.Close()
		if ok, err := filelock.TryLock(f); !ok || err != nil {
			return 0, false
		}
	}
	n := treeSize(p)
	if err := os.RemoveAll(p); err != nil {
		return 0, false
	}
	return n, true
}

// treeSize returns the bytes of the regular files at or under p.
func treeSize(p string) int64 {
	var n int64
	filepath.WalkDir(p, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// Line says what was removed in one line, as the commands print it:
// "removed 2 temporary files of a killed build (1.0 GiB): a.img's, ...",
// the first three of names (the paths as the user should read them),
// run naming what was killed; "" when nothing was.
func (r Removed) Line(run string, names []string) string {
	if len(names) == 0 {
		return ""
	}
	what := "temporary files"
	if len(names) == 1 {
		what = "temporary file"
	}
	list, more := names, ""
	if len(list) > 3 {
		list, more = list[:3], fmt.Sprintf(" and %d more", len(names)-3)
	}
	return fmt.Sprintf("removed %d %s of a killed %s (%s): %s%s", len(names), what, run, termline.Bytes(r.Bytes), strings.Join(list, ", "), more)
}

// RemoveLeftovers removes what killed runs writing target left beside it
// (Leftovers, RemoveStale) and returns the line that says so, naming the
// files by their base names, or "" when there were none: what a command
// does before it writes target.
func RemoveLeftovers(target string) string {
	r := RemoveStale(Leftovers(target))
	names := make([]string, len(r.Paths))
	for i, p := range r.Paths {
		names[i] = filepath.Base(p)
	}
	return r.Line("run", names)
}
