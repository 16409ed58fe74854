package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fixturegen/fixturegen/catalog"
)

// planMkimg plans an mkimg command line with parseMkimgArgs, the parser
// runMkimg uses, so that the catalogue reads the files the command reads:
// the disk named by -o is the output, and every file mkimg.Options.Inputs
// lists (the TYPE:=FILE partitions and -b's boot code) is an input, which
// orders the entry after the entries that build those files. A partition
// whose bytes come from a command (TYPE:-CMD), a line without -o or with
// -o's name attached to it, and a line that reads its own output are
// errors.
func planMkimg(e *env, args []string) (*catalog.Plan, error) {
	if spec := mkimgCommandPartition(args); spec != "" {
		return nil, fmt.Errorf("mkimg -p %s: %w", quoteWord(spec), errMkimgCommand)
	}
	o, err := parseMkimgArgs(e, args)
	if err != nil {
		return nil, err
	}
	if o.Output == "" {
		return nil, errMkimgStdout
	}
	out := mkimgOutputArg(args)
	if out < 0 {
		return nil, fmt.Errorf("mkimg -o%s: give -o and the disk's name as two arguments (-o %s), so that the build can write the disk under a temporary name", o.Output, o.Output)
	}
	p := &catalog.Plan{Output: out}
	disk := e.abs(o.Output)
	for _, f := range o.Inputs() {
		if f == disk {
			return nil, fmt.Errorf("mkimg: %s is both the disk and a file it is made from", o.Output)
		}
		p.Inputs = append(p.Inputs, catalog.Input{Path: f, Follow: true})
	}
	return p, nil
}

// errMkimgCommand is the error of planMkimg for a TYPE:-CMD partition: its
// bytes are what a command prints, which the catalogue can neither track
// nor reproduce from what git keeps.
var errMkimgCommand = errors.New("a partition made by a command cannot be in a catalogue, which tracks only the files an entry reads; build the partition in an entry of its own and give it as TYPE:=FILE")

// errMkimgStdout is the error of planMkimg for a line without -o, whose
// disk would go to standard output.
var errMkimgStdout = errors.New("mkimg without -o writes the disk to standard output; give -o and the entry's name")

// mkimgOption is one option of an mkimg command line: its name ("p",
// "capacity"), its value, and the index of the argument holding the value
// when it is an argument of its own (-1 when it is attached or absent).
type mkimgOption struct {
	name     string
	value    string
	valueArg int
}

// mkimgOptions splits args into options as mkimg(1)'s getopt does: -v and
// -y take no value, every other one-letter option takes the rest of its
// argument or else the next argument, and a long option (--capacity=N or
// --capacity N) takes its value after '=' or the next argument. It does
// not check the options: Parse does.
func mkimgOptions(args []string) []mkimgOption {
	var opts []mkimgOption
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case strings.HasPrefix(a, "--") && len(a) > 2:
			name, val, ok := strings.Cut(a[2:], "=")
			o := mkimgOption{name: name, value: val, valueArg: -1}
			if !ok && mkimgLongValue(name) && i+1 < len(args) {
				i++
				o.value, o.valueArg = args[i], i
			}
			opts = append(opts, o)
		case len(a) < 2 || a[0] != '-':
			continue // an operand; Parse refuses it
		case a == "-v" || a == "-y":
			opts = append(opts, mkimgOption{name: a[1:], valueArg: -1})
		case len(a) > 2:
			opts = append(opts, mkimgOption{name: a[1:2], value: a[2:], valueArg: -1})
		case i+1 < len(args):
			i++
			opts = append(opts, mkimgOption{name: a[1:], value: args[i], valueArg: i})
		}
	}
	return opts
}

// mkimgLongValue reports whether mkimg's long option name takes a value.
func mkimgLongValue(name string) bool { return name == "capacity" }

// mkimgOutputArg returns the index in args of the argument that holds
// -o's value, or -1 when -o is absent or its value is attached (-odisk).
func mkimgOutputArg(args []string) int {
	out := -1
	for _, o := range mkimgOptions(args) {
		if o.name == "o" {
			out = o.valueArg
		}
	}
	return out
}

// mkimgCommandPartition returns the first -p specification of args whose
// contents come from a command, TYPE[/LABEL]:-CMD as mkimg's -p grammar
// writes it, or "".
func mkimgCommandPartition(args []string) string {
	for _, o := range mkimgOptions(args) {
		if o.name != "p" {
			continue
		}
		if c := strings.IndexByte(o.value, ':'); c > 0 && strings.HasPrefix(o.value[c+1:], "-") {
			return o.value
		}
	}
	return ""
}
