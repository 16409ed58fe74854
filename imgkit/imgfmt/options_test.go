package imgfmt

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// testOptions is the options type of the table TestOptionTable uses.
type testOptions struct {
	Size  string
	Label string
}

var errTestUnknown = errors.New("unknown")

var testTable = OptionTable[testOptions]{
	{Option: Option{Key: "size", Letter: "s", Field: "Size", Default: "0", Usage: "the size"},
		Set: func(o *testOptions, key, value string) error { o.Size = key + "=" + value; return nil }},
	{Option: Option{Key: "label", Field: "Label", Default: "none", Usage: "the label"},
		Set: func(o *testOptions, key, value string) error {
			if value == "" {
				return fmt.Errorf("%s: empty", key)
			}
			o.Label = value
			return nil
		}},
}

// TestOptionTable checks that a row is found by its Key and its Letter,
// that Set hears the Key whichever was given, that an unknown key, "" among
// them, is the caller's error and changes nothing, and that Help and Names
// list the rows in order.
func TestOptionTable(t *testing.T) {
	t.Parallel()
	var o testOptions
	for _, key := range []string{"size", "s"} {
		if err := testTable.Parse(&o, key, "4k", nil); err != nil || o.Size != "size=4k" {
			t.Errorf("Parse(%q): %v, Size %q", key, err, o.Size)
		}
	}
	if err := testTable.Parse(&o, "label", "", nil); err == nil || err.Error() != "label: empty" {
		t.Errorf("Set's error: %v", err)
	}
	unknown := func(key string) error { return fmt.Errorf("%w %q", errTestUnknown, key) }
	for _, key := range []string{"", "S", "sizes", "l"} {
		before := o
		if err := testTable.Parse(&o, key, "1", unknown); !errors.Is(err, errTestUnknown) || o != before {
			t.Errorf("Parse(%q): %v, options %+v", key, err, o)
		}
		if s := testTable.Lookup(key); s != nil {
			t.Errorf("Lookup(%q) = %+v", key, s.Option)
		}
	}
	if got := testTable.Lookup("s"); got != &testTable[0] {
		t.Errorf("Lookup(s) = %p, want the first row", got)
	}
	if help := testTable.Help(); len(help) != 2 || help[0] != testTable[0].Option || help[1] != testTable[1].Option {
		t.Errorf("Help = %+v", help)
	}
	if names := slices.Collect(testTable.Names()); !slices.Equal(names, []string{"size", "s", "label"}) {
		t.Errorf("Names = %q", names)
	}
	for name := range testTable.Names() {
		if name == "s" {
			break // Names stops when asked to
		}
	}
}
