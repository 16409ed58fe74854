package getopt

import (
	"strconv"
	"strings"
	"testing"
)

// TestArgIndex checks Option.ArgIndex: the index of the word holding an
// option's argument when it is a word of its own, after permuted operands
// and grouped letters too, and 0 for an attached argument or none.
func TestArgIndex(t *testing.T) {
	t.Parallel()
	s := Spec{Short: "vo:p:", Long: []Long{{"capacity", RequiredArg}, {"formats", NoArg}}, Permute: true, Abbrev: true}
	for line, want := range map[string]string{
		"-o disk":                   "o@1",
		"-odisk -v":                 "o@0 v@0",
		"x -p a -vo disk":           "p@2 v@0 o@4",
		"--capacity 1m -o d":        "capacity@1 o@3",
		"--cap=1m --formats -p -o":  "capacity@0 formats@0 p@3",
		"-v -- -o d":                "v@0",
		"--capacity -o -o x -p efi": "capacity@1 o@3 p@5",
	} {
		opts, _, err := s.Parse(strings.Fields(line))
		if err != nil {
			t.Errorf("%s: %v", line, err)
			continue
		}
		var got []string
		for _, o := range opts {
			w := o.Long
			if o.Name != 0 {
				w = string(o.Name)
			}
			got = append(got, w+"@"+strconv.Itoa(o.ArgIndex))
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%s: got %q, want %q", line, strings.Join(got, " "), want)
		}
	}
}
