package imgfmt

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

// testNode is a node of the tree TestTreeLookup walks: a directory with
// children, a file, or a symbolic link to target.
type testNode struct {
	name   string
	kids   []*testNode
	link   bool
	target string
}

// testTree builds a Tree over nodes; reads counts the ReadLink calls.
func testTree(root *testNode, reads *int) Tree[*testNode] {
	errBad := errors.New("bad directory block")
	return Tree[*testNode]{
		Root: func() (*testNode, error) { return root, nil },
		Child: func(dir *testNode, name string) (*testNode, error) {
			if dir.kids == nil {
				return nil, fs.ErrNotExist
			}
			for _, k := range dir.kids {
				if k.name == name {
					return k, nil
				}
			}
			if name == "bad" {
				return nil, errBad
			}
			return nil, fs.ErrNotExist
		},
		IsLink: func(n *testNode) bool { return n.link },
		ReadLink: func(n *testNode) (string, error) {
			*reads++
			if n.target == "unreadable" {
				return "", errBad
			}
			return n.target, nil
		},
	}
}

// TestTreeLookup checks Lookup's walk: links followed inside a path and,
// with follow, at its end; relative and absolute targets; a target that
// leaves the tree; a link cycle; a file used as a directory; the errors of
// Child and ReadLink; and an invalid path, each error an *fs.PathError
// with the operation and the name.
func TestTreeLookup(t *testing.T) {
	t.Parallel()
	file := &testNode{name: "f"}
	sub := &testNode{name: "sub", kids: []*testNode{{name: "g"},
		{name: "up", link: true, target: "../../f"}, {name: "abs", link: true, target: "/d/sub/g"},
		{name: "out", link: true, target: "../../../x"}, {name: "root", link: true, target: "/"}}}
	d := &testNode{name: "d", kids: []*testNode{sub, {name: "s", link: true, target: "sub"}}}
	root := &testNode{name: ".", kids: []*testNode{file, d,
		{name: "loop", link: true, target: "loop"}, {name: "u", link: true, target: "unreadable"}}}
	var reads int
	tree := testTree(root, &reads)
	for _, tc := range []struct {
		name   string
		follow bool
		want   string // the node's name, or the error's text
	}{
		{".", true, "."},
		{"f", true, "f"},
		{"d/s/g", false, "g"},
		{"d/s", false, "s"},
		{"d/s", true, "sub"},
		{"d/sub/up", true, "f"},
		{"d/sub/abs", true, "g"},
		{"d/sub/root/d/s/up", true, "f"},
		{"d/sub/out", true, "lookup d/sub/out: file does not exist"},
		{"d/sub/out", false, "out"},
		{"loop", true, "lookup loop: too many levels of symbolic links"},
		{"loop", false, "loop"},
		{"f/g", true, "lookup f/g: file does not exist"},
		{"d/nosuch", true, "lookup d/nosuch: file does not exist"},
		{"d/bad", true, "lookup d/bad: bad directory block"},
		{"u/x", true, "lookup u/x: bad directory block"},
		{"/f", true, "lookup /f: invalid argument"},
		{"d/../f", true, "lookup d/../f: invalid argument"},
	} {
		n, err := tree.Lookup("lookup", tc.name, tc.follow)
		got := ""
		if err != nil {
			got = err.Error()
			var pe *fs.PathError
			if !errors.As(err, &pe) || pe.Op != "lookup" || pe.Path != tc.name || n != nil {
				t.Errorf("%s: error %#v with node %v", tc.name, err, n)
			}
		} else {
			got = n.name
		}
		if got != tc.want {
			t.Errorf("Lookup(%q, follow %v) = %s, want %s", tc.name, tc.follow, got, tc.want)
		}
	}
	if _, err := tree.Lookup("stat", "loop", true); !errors.Is(err, ErrLinkLoop) {
		t.Errorf("loop: %v, want ErrLinkLoop", err)
	}
	reads = 0
	if _, err := tree.Lookup("lstat", "u", false); err != nil || reads != 0 {
		t.Errorf("a final link not followed: %v, %d ReadLink calls, want none", err, reads)
	}
	deep := &testNode{name: ".", kids: []*testNode{{name: "l0", link: true, target: "l1"}}}
	for i := 1; i <= MaxLinkDepth; i++ {
		deep.kids = append(deep.kids, &testNode{name: fmt.Sprint("l", i), link: true, target: fmt.Sprint("l", i+1)})
	}
	deep.kids = append(deep.kids, &testNode{name: fmt.Sprint("l", MaxLinkDepth+1)})
	if n, err := testTree(deep, &reads).Lookup("open", "l1", true); err != nil || n.name != fmt.Sprint("l", MaxLinkDepth+1) {
		t.Errorf("%d links: %v", MaxLinkDepth, err)
	}
	if _, err := testTree(deep, &reads).Lookup("open", "l0", true); !errors.Is(err, ErrLinkLoop) {
		t.Errorf("%d links: %v, want ErrLinkLoop", MaxLinkDepth+1, err)
	}
	plain := Tree[*testNode]{Root: tree.Root, Child: tree.Child}
	if n, err := plain.Lookup("open", "d/s", true); err != nil || n.name != "s" {
		t.Errorf("a tree without links: %v, %v", n, err)
	}
}
