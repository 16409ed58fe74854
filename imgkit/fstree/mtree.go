package fstree

import (
	"errors"
	"io"
)

// Spec is a parsed mtree(5) specification.
type Spec struct {
	// Name is the spec's file name, used in error messages ("name:line: ...").
	Name string
	// Dir is the directory against which relative paths in contents
	// keywords are resolved; empty means the current directory, as makefs
	// resolves them.
	Dir string

	root *specNode
}

// specNode is one entry of a spec.
type specNode struct{}

// ReadSpec parses the mtree(5) specification read from r; name is the
// spec's file name for error messages, which have the form "name:line: ...".
func ReadSpec(r io.Reader, name string) (*Spec, error) {
	return nil, errors.New("fstree: ReadSpec not implemented yet")
}
