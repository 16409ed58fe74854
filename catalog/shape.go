package catalog

import (
	"errors"
	"fmt"
	"strings"
)

// ManifestError is returned by Build and Verify, before any entry runs,
// when the selected entries break a rule about the manifest's shape: an
// input folder that holds an output or the catalogue's own files, entries
// that read each other's outputs, a command line that does not write the
// output its line names, an output written through a symbolic link. Such a
// manifest would build some outputs and then fail on others whatever the
// order, so nothing is built (an entry whose own command line is wrong in
// some other way fails alone, and the others still run).
type ManifestError struct {
	// Problems has one line for each broken rule, in the manifest's
	// order: "manifest:2: e.img: the input folder src holds ...".
	Problems []string
}

func (m *ManifestError) Error() string {
	if len(m.Problems) == 1 {
		return m.Problems[0] + "; nothing was built"
	}
	return strings.Join(m.Problems, "\n") + fmt.Sprintf("\n%d problems with %s; nothing was built", len(m.Problems), ManifestName)
}

// shapeError marks an entry's plan error as one about the manifest's
// shape, which stops the whole run (ManifestError).
type shapeError struct{ err error }

func (s *shapeError) Error() string { return s.err.Error() }
func (s *shapeError) Unwrap() error { return s.err }

// shapeProblems returns a *ManifestError listing the selected entries
// whose plan error is a shapeError, or nil when there is none.
func shapeProblems(sel []Entry, planErrs []error) error {
	var problems []string
	for i, err := range planErrs {
		var s *shapeError
		if errors.As(err, &s) {
			problems = append(problems, fmt.Sprintf("%s:%d: %s: %s", ManifestName, sel[i].Line, sel[i].Name, oneLine(err.Error())))
		}
	}
	if problems == nil {
		return nil
	}
	return &ManifestError{Problems: problems}
}
