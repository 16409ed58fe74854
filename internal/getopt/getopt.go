// Package getopt splits a command line into options and operands as BSD
// getopt(3) and getopt_long(3) do, for the commands fixturegen copies
// (makefs, mkimg and its own), so that each reads its options the way the
// program it copies reads them.
package getopt

import (
	"fmt"
	"strings"
)

// ArgMode says whether and how a long option takes an argument.
type ArgMode int

const (
	// NoArg is a long option without an argument ("--version").
	NoArg ArgMode = iota
	// RequiredArg is getopt_long's required_argument: "--name=value" or
	// "--name value".
	RequiredArg
	// EqualsArg takes its argument only as "--name=value".
	EqualsArg
)

// Long is one long option of a Spec.
type Long struct {
	Name string
	Arg  ArgMode
}

// Spec is a command's options.
type Spec struct {
	// Short is the getopt(3) option string: letters, each followed by ':'
	// when it takes an argument.
	Short string
	// Long are the options written "--name".
	Long []Long
	// Permute makes operands anywhere on the line wait at the end while
	// the options after them are read, as getopt_long(3) permutes argv;
	// without it scanning stops at the first operand, as getopt(3) does.
	// Either way "--" ends the options and "-" is an operand.
	Permute bool
	// Abbrev accepts a unique prefix of a long option's name, as
	// getopt_long(3) does.
	Abbrev bool
}

// Option is one option read from a command line.
type Option struct {
	Name byte   // the option letter; 0 for a long option
	Long string // the long option's full name
	Arg  string // its argument, for options that take one
	// ArgIndex is the index in the parsed args of the word that holds
	// Arg when the argument is a word of its own ("-o disk", "--capacity
	// 1m"), so that a caller can replace it (a build tool writing under a
	// temporary name); 0 when the argument is attached ("-odisk",
	// "--capacity=1m") or there is none.
	ArgIndex int
}

// Error is a command line Parse cannot read; its message names the
// option and what is wrong ("unknown option -q").
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func errorf(format string, args ...any) error {
	return &Error{Msg: fmt.Sprintf(format, args...)}
}

// Parse splits args (without the program name) into options, in the
// order given, and operands. Options may be grouped ("-xZ"), and an
// argument may be attached ("-s10m") or be the next word ("-s 10m").
// Errors are *Error values.
func (s *Spec) Parse(args []string) (opts []Option, operands []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return opts, append(operands, args[i+1:]...), nil
		}
		if len(a) < 2 || a[0] != '-' {
			if !s.Permute {
				return opts, args[i:], nil
			}
			operands = append(operands, a)
			continue
		}
		if long, ok := strings.CutPrefix(a, "--"); ok {
			o, used, err := s.long(long, args[i+1:])
			if err != nil {
				return nil, nil, err
			}
			if used > 0 {
				o.ArgIndex = i + used
			}
			opts = append(opts, o)
			i += used
			continue
		}
		for j := 1; j < len(a); j++ {
			c := a[j]
			k := strings.IndexByte(s.Short, c)
			if c == ':' || k < 0 {
				return nil, nil, errorf("unknown option -%c", c)
			}
			if k+1 >= len(s.Short) || s.Short[k+1] != ':' {
				opts = append(opts, Option{Name: c})
				continue
			}
			o := Option{Name: c}
			switch {
			case j+1 < len(a):
				o.Arg = a[j+1:]
			case i+1 < len(args):
				i++
				o.Arg, o.ArgIndex = args[i], i
			default:
				return nil, nil, errorf("option -%c requires an argument", c)
			}
			opts = append(opts, o)
			break
		}
	}
	return opts, operands, nil
}

// long reads the word "--" + w, with next the words after it, and
// returns the option and how many of next it took as its argument.
func (s *Spec) long(w string, next []string) (Option, int, error) {
	name, arg, hasArg := strings.Cut(w, "=")
	l, err := s.lookup(name)
	if err != nil {
		return Option{}, 0, err
	}
	o := Option{Long: l.Name, Arg: arg}
	switch {
	case l.Arg == NoArg && hasArg:
		return Option{}, 0, errorf("option --%s takes no argument", l.Name)
	case l.Arg == EqualsArg && !hasArg:
		return Option{}, 0, errorf("option --%s requires an argument: --%s=value", l.Name, l.Name)
	case l.Arg == RequiredArg && !hasArg:
		if len(next) == 0 {
			return Option{}, 0, errorf("option --%s requires an argument", l.Name)
		}
		o.Arg = next[0]
		return o, 1, nil
	}
	return o, 0, nil
}

// lookup finds the long option name, or with Abbrev the one it is a
// unique prefix of.
func (s *Spec) lookup(name string) (Long, error) {
	var found []Long
	for _, l := range s.Long {
		if l.Name == name {
			return l, nil
		}
		if s.Abbrev && name != "" && strings.HasPrefix(l.Name, name) {
			found = append(found, l)
		}
	}
	switch len(found) {
	case 0:
		return Long{}, errorf("unknown option --%s", name)
	case 1:
		return found[0], nil
	}
	return Long{}, errorf("option --%s is ambiguous", name)
}
