package catalog

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// checkTrees sets planErrs[i] for each selected entry whose plan reads a
// folder that holds an output of the manifest (its own or another
// entry's) or the catalogue folder itself (the manifest, fixtures.sum, the
// state, the lock and the temporary files): the command would pack those
// files, which change with every build, into its output. An output named
// as an input itself is no such folder: it makes the entry run after the
// one that writes it. Each folder is checked as written and with its
// symbolic links resolved, as far as they exist: a folder the run is yet
// to make for an output, reached through a link, counts too.
//
// It takes one lstat of each input (statInputs), which the inputs'
// fingerprints then use, and resolves links from it: an input that is not
// a link resolves to its folder's resolved path (one filepath.EvalSymlinks
// per folder, not per input) and its name. Which folders hold outputs is
// looked up in an index of the outputs' folders (holders), so that the
// check is linear in the inputs and outputs.
func (e *engine) checkTrees(sel []Entry, plans []*Plan, planErrs []error) {
	root := e.dir
	realRoot, rootErr := filepath.EvalSymlinks(root)
	e.statInputs(plans, planErrs)
	written := treeBase{root: root, holders: e.holders(root)}
	var resolved *treeBase // made when first needed
	dirs := map[string]string{root: realRoot}
	for i, p := range plans {
		if p == nil || planErrs[i] != nil {
			continue
		}
		for _, in := range p.Inputs {
			abs := e.inputPath(in)
			written.dir = abs
			bases := []treeBase{written}
			if r, ok := e.resolve(abs, dirs); ok && rootErr == nil {
				if resolved == nil {
					resolved = &treeBase{root: realRoot, holders: e.holders(realRoot)}
				}
				b := *resolved
				b.dir = r
				bases = append(bases, b)
			}
			if err := e.treeHolds(sel[i], in.Path, bases); err != nil {
				planErrs[i] = &shapeError{err}
				break
			}
		}
	}
}

// inputPath returns the absolute path of the planned input in, which
// plan made relative to the folder the entries run in when inside it.
func (e *engine) inputPath(in Input) string {
	if filepath.IsAbs(in.Path) {
		return in.Path
	}
	return filepath.Join(e.dir, filepath.FromSlash(in.Path))
}

// lstatResult is what one lstat of an input said.
type lstatResult struct {
	fi  fs.FileInfo
	err error
}

// statInputs lstats every input of the plans that planned, once each,
// with Options.Jobs goroutines, into e.lstats, for checkTrees and the
// fingerprints (keyer.statInput). The fingerprints are taken before any
// command runs, as they were when each took its own lstat: a file that
// changes after this lstat has another change time at the next build.
func (e *engine) statInputs(plans []*Plan, planErrs []error) {
	var paths []string
	seen := map[string]bool{}
	for i, p := range plans {
		if p == nil || planErrs[i] != nil {
			continue
		}
		for _, in := range p.Inputs {
			if abs := e.inputPath(in); !seen[abs] {
				seen[abs] = true
				paths = append(paths, abs)
			}
		}
	}
	res := make([]lstatResult, len(paths))
	var wg sync.WaitGroup
	jobs := max(1, min(e.o.Jobs, len(paths)/64))
	for w := range jobs {
		wg.Go(func() {
			for i := w; i < len(paths); i += jobs {
				res[i].fi, res[i].err = os.Lstat(paths[i])
			}
		})
	}
	wg.Wait()
	e.lstats = make(map[string]lstatResult, len(paths))
	for i, p := range paths {
		e.lstats[p] = res[i]
	}
	if e.st != nil {
		e.st.calls.Add(int64(len(paths)))
	}
}

// lstat returns the lstat information of the input at the absolute path
// p: what statInputs found, or a new lstat of an input it did not see.
func (e *engine) lstat(p string) (fs.FileInfo, error) {
	if r, ok := e.lstats[p]; ok {
		return r.fi, r.err
	}
	if e.st != nil {
		e.st.calls.Add(1)
	}
	return os.Lstat(p)
}

// resolve returns the input path abs with symbolic links resolved, as
// filepath.EvalSymlinks does, and false when that cannot be said. An input
// that is not a link resolves to its folder resolved (resolveDir) and its
// name: one EvalSymlinks per folder, not per input. So does one that does
// not exist yet, such as the folder of an output that the run will make,
// which EvalSymlinks would not resolve: through a linked folder above it,
// it may still be a folder that will hold an output.
func (e *engine) resolve(abs string, dirs map[string]string) (string, bool) {
	fi, err := e.lstat(abs)
	parent := filepath.Dir(abs)
	switch {
	case parent == abs:
		return abs, err == nil
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		r, err := filepath.EvalSymlinks(abs)
		return r, err == nil
	case err != nil && !os.IsNotExist(err):
		return "", false
	}
	rp, ok := resolveDir(parent, dirs)
	if !ok {
		return "", false
	}
	return filepath.Join(rp, filepath.Base(abs)), true
}

// resolveDir returns the folder d with symbolic links resolved, by
// filepath.EvalSymlinks, or, when d does not exist, its parent's resolved
// and its name; dirs keeps what it found ("" for nothing).
func resolveDir(d string, dirs map[string]string) (string, bool) {
	if r, ok := dirs[d]; ok {
		return r, r != ""
	}
	r, err := filepath.EvalSymlinks(d)
	if err != nil {
		r = ""
		if parent := filepath.Dir(d); parent != d && os.IsNotExist(err) {
			if _, lerr := os.Lstat(d); os.IsNotExist(lerr) {
				if rp, ok := resolveDir(parent, dirs); ok {
					r = filepath.Join(rp, filepath.Base(d))
				}
			}
		}
	}
	dirs[d] = r
	return r, r != ""
}

// treeBase is an input folder's path (dir) with the catalogue folder's
// (root) and the index of the folders under root that hold the
// manifest's outputs (holders), all as written or all with links
// resolved.
type treeBase struct {
	dir, root string
	holders   map[string]int
}

// holders returns, for each folder under root (root itself not included)
// that holds an output of the manifest at any depth, the index in the
// manifest of the first such output. Each output adds the folders above
// it up to root, stopping at one an earlier output added (whose folders
// above are added already): linear in the outputs' path lengths.
func (e *engine) holders(root string) map[string]int {
	h := map[string]int{}
	for k, o := range e.cat.Entries {
		out := filepath.Join(root, filepath.FromSlash(o.Name))
		for d := filepath.Dir(out); d != root && d != out && within(root, d); d, out = filepath.Dir(d), d {
			if _, ok := h[d]; ok {
				break
			}
			h[d] = k
		}
	}
	return h
}

// treeHolds returns the error for the input folder shown as name when,
// at one of bases, it holds the catalogue folder or an output of the
// manifest; m is the entry reading it. An output named as an input is no
// such folder: it is a dependency.
func (e *engine) treeHolds(m Entry, name string, bases []treeBase) error {
	for _, b := range bases {
		if within(b.dir, b.root) {
			return fmt.Errorf("the input folder %s holds the catalogue's own files (%s, %s, %s, %s*), which change with every build: give a folder of inputs", name, ManifestName, SumName, StateName, tmpPrefix)
		}
		k, ok := b.holders[b.dir]
		if !ok {
			continue
		}
		o := e.cat.Entries[k]
		if o.Name == m.Name {
			return fmt.Errorf("the input folder %s holds this entry's own output %s", name, o.Name)
		}
		return fmt.Errorf("the input folder %s holds %s, the output of %s:%d: name that output as an input, or move it out of the folder", name, o.Name, ManifestName, o.Line)
	}
	return nil
}

// within reports whether the clean absolute path p is dir or lies under it.
func within(dir, p string) bool {
	if p == dir {
		return true
	}
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		return len(p) > len(dir) && p[len(dir)] == filepath.Separator && strings.HasPrefix(p, dir)
	}
	return strings.HasPrefix(p, dir)
}
