package catalog

import (
	"fmt"
	"path/filepath"
	"strings"
)

// checkTrees sets planErrs[i] for each selected entry whose plan reads a
// folder that holds an output of the manifest (its own or another
// entry's) or the catalogue folder itself (the manifest, fixtures.sum, the
// state, the lock and the temporary files): the command would pack those
// files, which change with every build, into its output. An output named
// as an input itself is no such folder: it makes the entry run after the
// one that writes it. Each folder is checked as written and, when it
// exists, with symbolic links resolved.
func (e *engine) checkTrees(sel []Entry, plans []*Plan, planErrs []error) {
	root := e.dir
	realRoot, rootErr := filepath.EvalSymlinks(root)
	for i, p := range plans {
		if p == nil || planErrs[i] != nil {
			continue
		}
		for _, in := range p.Inputs {
			abs := in.Path
			if !filepath.IsAbs(abs) {
				abs = filepath.Join(root, filepath.FromSlash(abs))
			}
			bases := [][2]string{{abs, root}}
			if r, err := filepath.EvalSymlinks(abs); err == nil && rootErr == nil {
				bases = append(bases, [2]string{r, realRoot})
			}
			if err := e.treeHolds(sel[i], in.Path, bases); err != nil {
				planErrs[i] = err
				break
			}
		}
	}
}

// treeHolds returns the error for the input folder shown as name when,
// at one of bases (the folder's path with the catalogue folder's, both as
// written or both with links resolved), it holds the catalogue folder or
// an output of the manifest; m is the entry reading it.
func (e *engine) treeHolds(m Entry, name string, bases [][2]string) error {
	for _, b := range bases {
		dir, root := b[0], b[1]
		if within(dir, root) {
			return fmt.Errorf("the input folder %s holds the catalogue's own files (%s, %s, %s, %s*), which change with every build: give a folder of inputs", name, ManifestName, SumName, StateName, tmpPrefix)
		}
		for _, o := range e.cat.Entries {
			out := filepath.Join(root, filepath.FromSlash(o.Name))
			if out == dir || !within(dir, out) {
				continue // an output named as an input is a dependency
			}
			if o.Name == m.Name {
				return fmt.Errorf("the input folder %s holds this entry's own output %s", name, o.Name)
			}
			return fmt.Errorf("the input folder %s holds %s, the output of %s:%d: name that output as an input, or move it out of the folder", name, o.Name, ManifestName, o.Line)
		}
	}
	return nil
}

// within reports whether the clean absolute path p is dir or lies under it.
func within(dir, p string) bool {
	if p == dir {
		return true
	}
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		dir += string(filepath.Separator)
	}
	return strings.HasPrefix(p, dir)
}
