package cli

import (
	"errors"
	"fmt"

	"github.com/fixturegen/fixturegen/catalog"
	"github.com/fixturegen/fixturegen/imgkit/mkimg"
)

// planMkimg plans an mkimg command line with parseMkimgArgs, the parser
// runMkimg uses, so that the catalogue reads the line as the command does
// and tracks the files it reads: the disk named by -o is the output
// (Options.OutputArg), every file mkimg.Options.Inputs lists (the
// TYPE:=FILE partitions, after their :OFFSET is split off as mkimg splits
// it, and -b's boot code) is an input, which orders the entry after the
// entries that build those files, and every whole FILE:OFFSET name
// Options.OptionalInputs lists is an optional input, whose creation would
// change which file is read. A query (-h, --formats, --schemes,
// --version), a partition whose bytes come from a command (TYPE:-CMD), a
// line without -o or with -o's name attached to it, and a line that reads
// its own output are errors.
func planMkimg(e *env, args []string) (*catalog.Plan, error) {
	o, err := parseMkimgArgs(e, args)
	if err != nil {
		return nil, err
	}
	if o.Query != "" {
		return nil, fmt.Errorf("mkimg %s: %w", mkimgQueryOption(o.Query), errMkimgQuery)
	}
	for _, p := range o.Partitions {
		if p.Command != "" {
			return nil, fmt.Errorf("mkimg -p %s: %w", quoteWord(mkimgCommandSpec(p)), errMkimgCommand)
		}
	}
	if o.Output == "" {
		return nil, errMkimgStdout
	}
	if o.OutputArg == 0 {
		return nil, fmt.Errorf("mkimg -o%s: give -o and the disk's name as two arguments (-o %s), so that the build can write the disk under a temporary name", o.Output, o.Output)
	}
	p := &catalog.Plan{Output: o.OutputArg}
	disk := e.abs(o.Output)
	add := func(files []string, optional bool) error {
		for _, f := range files {
			if f == disk {
				return fmt.Errorf("mkimg: %s is both the disk and a file it is made from", o.Output)
			}
			p.Inputs = append(p.Inputs, catalog.Input{Path: f, Optional: optional, Follow: true})
		}
		return nil
	}
	if err := add(o.Inputs(), false); err != nil {
		return nil, err
	}
	if err := add(o.OptionalInputs(), true); err != nil {
		return nil, err
	}
	return p, nil
}

// errMkimgQuery is the error of planMkimg for a line that asks mkimg for
// information rather than a disk.
var errMkimgQuery = errors.New("the line asks for information and writes no disk; a catalogue entry must write its disk with -o")

// errMkimgCommand is the error of planMkimg for a TYPE:-CMD partition: its
// bytes are what a command prints, which the catalogue can neither track
// nor reproduce from what git keeps.
var errMkimgCommand = errors.New("a partition made by a command cannot be in a catalogue, which tracks only the files an entry reads; build the partition in an entry of its own and give it as TYPE:=FILE")

// errMkimgStdout is the error of planMkimg for a line without -o, whose
// disk would go to standard output.
var errMkimgStdout = errors.New("mkimg without -o writes the disk to standard output; give -o and the entry's name")

// mkimgQueryOption returns the option that asks mkimg's query q
// (mkimg.Options.Query), as its usage writes it.
func mkimgQueryOption(q string) string {
	if q == "help" {
		return "-h"
	}
	return "--" + q
}

// mkimgCommandSpec returns the -p specification of a TYPE:-CMD partition
// as the command line writes it, TYPE[/LABEL]:-CMD, which
// mkimg.ParsePartition reads without loss.
func mkimgCommandSpec(p mkimg.Partition) string {
	t := p.Type
	if p.Label != "" {
		t += "/" + p.Label
	}
	return t + ":-" + p.Command
}
