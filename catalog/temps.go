package catalog

import (
	"os"
	"sync"
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
