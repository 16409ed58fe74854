package fstree

import "errors"

// ApplySpec merges spec into t as makefs -F does, or builds a tree from the
// spec alone when t is nil; exclude is makefs -x: nodes the spec does not
// name are dropped.
func ApplySpec(t *Tree, spec *Spec, exclude bool, opts *Options) (*Tree, error) {
	return nil, errors.New("fstree: ApplySpec not implemented yet")
}
