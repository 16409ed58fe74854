package catalog

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// dependencies returns, for each selected entry, the indexes of the
// selected entries whose outputs it reads: an input that is the output, or
// a directory holding it (which checkTrees then refuses). An entry whose
// plan failed, as one does whose source is another entry's output not yet
// built, reads the outputs that its arguments name. A cycle is an error.
func dependencies(sel []Entry, plans []*Plan) ([][]int, error) {
	// under maps each output and each folder above one to the entries
	// writing there.
	under := map[string][]int{}
	for j, o := range sel {
		for p := o.Name; ; p = path.Dir(p) {
			under[p] = append(under[p], j)
			if p == "." {
				break
			}
		}
	}
	deps := make([][]int, len(sel))
	for i, p := range plans {
		if p == nil {
			for _, a := range sel[i].Args[1:] {
				if a == "" || filepath.IsAbs(a) {
					continue
				}
				for j, o := range sel {
					if j != i && o.Name == path.Clean(filepath.ToSlash(a)) && !slices.Contains(deps[i], j) {
						deps[i] = append(deps[i], j)
					}
				}
			}
			continue
		}
		for _, in := range p.Inputs {
			if filepath.IsAbs(in.Path) {
				continue
			}
			for _, j := range under[path.Clean(filepath.ToSlash(in.Path))] {
				if j != i && !slices.Contains(deps[i], j) {
					deps[i] = append(deps[i], j)
				}
			}
		}
	}
	if err := findCycle(sel, deps); err != nil {
		return nil, err
	}
	return deps, nil
}

// findCycle returns an error naming the entries of the first cycle in deps
// that a depth-first search in manifest order finds, or nil.
func findCycle(sel []Entry, deps [][]int) error {
	const (
		unseen = iota
		active
		finished
	)
	mark := make([]int, len(sel))
	var stack []int
	var visit func(i int) error
	visit = func(i int) error {
		mark[i] = active
		stack = append(stack, i)
		for _, d := range deps[i] {
			switch mark[d] {
			case active:
				k := slices.Index(stack, d)
				var names []string
				for _, s := range stack[k:] {
					names = append(names, sel[s].Name)
				}
				names = append(names, sel[d].Name)
				return fmt.Errorf("%s:%d: %s: the entries read each other's outputs: %s", ManifestName, sel[d].Line, sel[d].Name, strings.Join(names, " -> "))
			case unseen:
				if err := visit(d); err != nil {
					return err
				}
			}
		}
		stack = stack[:len(stack)-1]
		mark[i] = finished
		return nil
	}
	for i := range sel {
		if mark[i] == unseen {
			if err := visit(i); err != nil {
				return err
			}
		}
	}
	return nil
}

// topoOrder returns 0..n-1 ordered so that each index comes after its
// dependencies, otherwise in manifest order.
func topoOrder(n int, deps [][]int) []int {
	placed := make([]bool, n)
	var order []int
	var place func(i int)
	place = func(i int) {
		if placed[i] {
			return
		}
		placed[i] = true
		for _, d := range deps[i] {
			place(d)
		}
		order = append(order, i)
	}
	for i := 0; i < n; i++ {
		place(i)
	}
	return order
}
