package getopt

import (
	"reflect"
	"strings"
	"testing"
)

// TestParse checks grouping, attached and separate arguments, "--", "-",
// permutation, long options and their abbreviations.
func TestParse(t *testing.T) {
	t.Parallel()
	long := []Long{{"formats", NoArg}, {"capacity", RequiredArg}, {"metadata", EqualsArg}}
	for _, c := range []struct {
		spec Spec
		line string
		opts string
		rest string
	}{
		{Spec{Short: "xZs:"}, "-xZ -s10m a b", "x Z s=10m", "a b"},
		{Spec{Short: "xs:"}, "-s 10m -x", "s=10m x", ""},
		{Spec{Short: "x"}, "-x a -x", "x", "a -x"},
		{Spec{Short: "x"}, "-x -- -x", "x", "-x"},
		{Spec{Short: "x"}, "- -x", "", "- -x"},
		{Spec{Short: "x", Permute: true}, "a -x - b -x", "x x", "a - b"},
		{Spec{Short: "x", Permute: true}, "a -- -x", "", "a -x"},
		{Spec{Long: long}, "--formats --capacity 1m --capacity=2m --metadata=m", "formats capacity=1m capacity=2m metadata=m", ""},
		{Spec{Long: long, Abbrev: true}, "--form --cap=3", "formats capacity=3", ""},
	} {
		opts, rest, err := c.spec.Parse(strings.Fields(c.line))
		if err != nil {
			t.Errorf("%s: %v", c.line, err)
			continue
		}
		var got []string
		for _, o := range opts {
			w := o.Long
			if o.Name != 0 {
				w = string(o.Name)
			}
			if o.Arg != "" {
				w += "=" + o.Arg
			}
			got = append(got, w)
		}
		if strings.Join(got, " ") != c.opts || !reflect.DeepEqual(strings.Join(rest, " "), c.rest) {
			t.Errorf("%s: got %q and operands %q, want %q and %q", c.line, got, rest, c.opts, c.rest)
		}
	}
}

// TestParseErrors checks each error's message.
func TestParseErrors(t *testing.T) {
	t.Parallel()
	long := []Long{{"formats", NoArg}, {"fortune", NoArg}, {"capacity", RequiredArg}, {"metadata", EqualsArg}}
	for line, want := range map[string]string{
		"-q":            "unknown option -q",
		"-s":            "option -s requires an argument",
		"--nope":        "unknown option --nope",
		"--fo":          "option --fo is ambiguous",
		"--formats=1":   "option --formats takes no argument",
		"--capacity":    "option --capacity requires an argument",
		"--metadata":    "option --metadata requires an argument: --metadata=value",
		"--metadata x":  "option --metadata requires an argument: --metadata=value",
		"-x --capacity": "option --capacity requires an argument",
	} {
		s := Spec{Short: "xs:", Long: long, Abbrev: true}
		_, _, err := s.Parse(strings.Fields(line))
		if _, ok := err.(*Error); !ok || err.Error() != want {
			t.Errorf("%s: got %v, want %q", line, err, want)
		}
	}
	if _, _, err := (&Spec{Long: long}).Parse([]string{"--form"}); err == nil {
		t.Error("--form accepted without Abbrev")
	}
}
