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
	written := e.outputsAt(root)
	var resolved []string // the outputs' paths under realRoot, made when first needed
	for i, p := range plans {
		if p == nil || planErrs[i] != nil {
			continue
		}
		for _, in := range p.Inputs {
			abs := in.Path
			if !filepath.IsAbs(abs) {
				abs = filepath.Join(root, filepath.FromSlash(abs))
			}
			bases := []treeBase{{abs, root, written}}
			if r, err := filepath.EvalSymlinks(abs); err == nil && rootErr == nil {
				if resolved == nil {
					resolved = e.outputsAt(realRoot)
				}
				bases = append(bases, treeBase{r, realRoot, resolved})
			}
			if err := e.treeHolds(sel[i], in.Path, bases); err != nil {
				planErrs[i] = &shapeError{err}
				break
			}
		}
	}
}

// treeBase is an input folder's path with the catalogue folder's and the
// paths of the manifest's outputs under it, all as written or all with
// links resolved.
type treeBase struct {
	dir, root string
	outs      []string // outs[k] is e.cat.Entries[k]'s output under root
}

// outputsAt returns the path under root of each entry's output, in the
// manifest's order, so that checkTrees joins each once, not once an input.
func (e *engine) outputsAt(root string) []string {
	outs := make([]string, len(e.cat.Entries))
	for k, o := range e.cat.Entries {
		outs[k] = filepath.Join(root, filepath.FromSlash(o.Name))
	}
	return outs
}

// treeHolds returns the error for the input folder shown as name when,
// at one of bases, it holds the catalogue folder or an output of the
// manifest; m is the entry reading it.
func (e *engine) treeHolds(m Entry, name string, bases []treeBase) error {
	for _, b := range bases {
		if within(b.dir, b.root) {
			return fmt.Errorf("the input folder %s holds the catalogue's own files (%s, %s, %s, %s*), which change with every build: give a folder of inputs", name, ManifestName, SumName, StateName, tmpPrefix)
		}
		for k, o := range e.cat.Entries {
			out := b.outs[k]
			if out == b.dir || !within(b.dir, out) {
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
