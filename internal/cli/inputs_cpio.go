package cli

import (
	"errors"

	"github.com/fixturegen/fixturegen/catalog"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// planCpio plans a cpio line of a catalogue: only "cpio -o ... --tree DIR
// -F archive" builds a fixture, since a catalogue has no standard input
// for a name list. The tree is the input, the -F argument the output.
// Under --metadata=git (what the runner gives cpio lines) the times must
// come from --timestamp, as makefs's from -T.
func planCpio(e *env, args []string) (*catalog.Plan, error) {
	a, err := parseCpioArgs(e, args)
	if err != nil {
		return nil, err
	}
	switch {
	case a.mode != 'o':
		return nil, errors.New("cpio builds a fixture only with -o")
	case a.tree == "":
		return nil, errCpioNoTree
	case a.archive == "" || a.archiveArg == 0:
		return nil, errors.New("cpio: give the archive as -F ARCHIVE, two words, for the catalogue to write it under a temporary name")
	}
	p := &catalog.Plan{Output: a.archiveArg, Times: a.timestampArg == ""}
	p.Inputs = append(p.Inputs, catalog.Input{Path: a.tree, Follow: true})
	if a.timestampArg != "" {
		p.Inputs = append(p.Inputs, catalog.Input{Path: e.abs(a.timestampArg), Optional: true, Follow: true, ModTime: true})
	}
	if a.metadata == fstree.MetadataGit && p.Times {
		return nil, errCpioCheckoutTimes
	}
	return p, nil
}

var (
	errCpioNoTree        = errors.New("cpio in a catalogue reads no name list (there is no standard input); give --tree DIR")
	errCpioCheckoutTimes = errors.New("cpio without --timestamp takes its times from the checkout, which git sets at checkout; give --timestamp (for instance --timestamp=0) or --metadata=host")
)
