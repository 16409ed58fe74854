package catalog

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/fixturegen/fixturegen/internal/tempfile"
)

// temps tracks the temporary files and directories of one run, so that a
// cancelled run removes them all. A nil *temps tracks nothing.
type temps struct {
	mu    sync.Mutex
	paths map[string]bool
}

func (t *temps) add(p string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.paths == nil {
		t.paths = map[string]bool{}
	}
	t.paths[p] = true
}

// remove removes p (with everything under it) and forgets it.
func (t *temps) remove(p string) {
	os.RemoveAll(p)
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.paths, p)
}

// removeAll removes every tracked path, with the temporary files that
// writers make beside it (see removeSiblings).
func (t *temps) removeAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for p := range t.paths {
		os.RemoveAll(p)
		removeSiblings(p)
	}
	clear(t.paths)
}

// leftoverTemps returns the temporary files and directories
// (tempfile.Pattern) in the catalogue folder dir and in the folders of the
// outputs of entries, sorted: what killed runs of the catalogue, and the
// commands they ran, left there. The caller holds the catalogue's lock, so
// no live run of the catalogue owns any of them. An output folder that is
// reached through a symbolic link (see outputFolderLink) is not looked
// in: it may be outside the catalogue.
func leftoverTemps(dir string, entries []Entry) []string {
	dirs := map[string]bool{dir: true}
	for _, m := range entries {
		if outputFolderLink(dir, m.Name) == nil {
			dirs[filepath.Dir(filepath.Join(dir, filepath.FromSlash(m.Name)))] = true
		}
	}
	var found []string
	for d := range dirs {
		ents, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, de := range ents {
			if tempfile.Is(de.Name()) {
				found = append(found, filepath.Join(d, de.Name()))
			}
		}
	}
	slices.Sort(found)
	return found
}

// removeLeftovers removes the temporary files and directories that killed
// runs of the catalogue in dir, and the commands they ran, left
// (leftoverTemps of entries) and returns the line that says so ("removed 2
// temporary files of a killed build (1.0 GiB): a.img's, ..."), or "" when
// there were none. A file that a live process holds is kept
// (tempfile.RemoveStale): a command writing into the catalogue's folders
// outside it, such as a standalone mkimg. Files it cannot remove are left
// and not counted.
func removeLeftovers(dir string, entries []Entry) string {
	r := tempfile.RemoveStale(leftoverTemps(dir, entries))
	names := make([]string, len(r.Paths))
	for i, p := range r.Paths {
		names[i] = display(dir, p)
	}
	return r.Line("build", names)
}

// trackTemp registers the temporary output tmp and the temporary files a
// command makes beside it (tempfile.Pattern(tmp), as bcache does).
func (e *engine) trackTemp(tmp string) func() {
	e.temps.add(tmp)
	return func() {
		e.temps.remove(tmp)
		removeSiblings(tmp)
	}
}

// removeSiblings removes the temporary files that writers make beside
// tmp, named by tempfile.Pattern(tmp).
func removeSiblings(tmp string) {
	pat := tempfile.Pattern(tmp)
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(tmp), globEscape(strings.TrimSuffix(pat, "*"))+"*"))
	for _, m := range matches {
		os.RemoveAll(m)
	}
}

// globEscape escapes the characters of s that filepath.Glob reads as
// pattern syntax, so that s matches only itself.
func globEscape(s string) string {
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune(`*?[\`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}
