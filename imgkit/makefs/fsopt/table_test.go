package fsopt

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

var testTable = Table[testOptions]{
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

// TestOptionNumber checks makefs's rules for a numeric option: no value is
// 1 (an error where 1 is below the range), a value is read by ParseNumber,
// and an error wraps the format's sentinel and names the key.
func TestOptionNumber(t *testing.T) {
	t.Parallel()
	errOption := errors.New("kv: bad option")
	for _, tc := range []struct {
		value  string
		lo, hi int64
		want   int64
		err    string
	}{
		{"", 0, 9, 1, ""},
		{"", 1, 9, 1, ""},
		{"", 2, 9, 0, "kv: bad option: n: 1 is out of range (at least 2)"},
		{"2x3", 0, 9, 6, ""},
		{"0x5", 2, 9, 0, `kv: bad option: n: "0x5": number out of range: 0 is not between 2 and 9`},
		{"ten", 0, 9, 0, `kv: bad option: n: "ten": illegal number`},
	} {
		v, err := Number(errOption, "n", tc.value, tc.lo, tc.hi)
		if tc.err == "" && (v != tc.want || err != nil) || tc.err != "" && (err == nil || err.Error() != tc.err || !errors.Is(err, errOption)) {
			t.Errorf("Number(%q, %d, %d) = %d, %v; want %d, %q", tc.value, tc.lo, tc.hi, v, err, tc.want, tc.err)
		}
	}
}
