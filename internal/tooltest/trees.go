package tooltest

import (
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// NestedTree returns a tree of depth nested directories named "d", for the
// writers' depth-limit tests.
func NestedTree(depth int) *fstree.Tree {
	root := &fstree.Node{Name: ".", Type: fstree.TypeDir, Mode: 0o755}
	n := root
	for range depth {
		c := &fstree.Node{Name: "d", Type: fstree.TypeDir, Mode: 0o755, Parent: n, Nlink: 2, Mtime: time.Unix(0, 0)}
		n.Children = []*fstree.Node{c}
		n = c
	}
	return &fstree.Tree{Root: root}
}
