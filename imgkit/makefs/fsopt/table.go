package fsopt

import (
	"fmt"
	"iter"
)

// A Spec is one row of a format's -o option table: the Option that
// help shows and the function that applies a value of it to the format's
// options, of type O.
type Spec[O any] struct {
	Option
	// Set applies value, what followed "=" ("" for a key given without
	// one), to o. key is the option's Key, whether the Key or the Letter
	// was given, for Set's errors to name.
	Set func(o *O, key, value string) error
}

// A Table is a format's -o options, in the order its help lists
// them. A format keeps one in a package variable and builds its
// OptionHelp and ParseOption on it:
//
//	func OptionHelp() []fsopt.Option { return optionTable.Help() }
//
//	func ParseOption(o *Options, key, value string) error {
//		return optionTable.Parse(o, key, value, unknownOption)
//	}
//
// No two rows may share a Key or a non-empty Letter, and no Letter may be
// another row's Key.
type Table[O any] []Spec[O]

// Lookup returns the row whose Key or Letter is key, or nil when there is
// none ("" names no row, even one without a Letter).
func (t Table[O]) Lookup(key string) *Spec[O] {
	if key == "" {
		return nil
	}
	for i := range t {
		if t[i].Key == key || t[i].Letter == key {
			return &t[i]
		}
	}
	return nil
}

// Names yields every Key and non-empty Letter of the table, in its order:
// every name Lookup finds a row by.
func (t Table[O]) Names() iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := range t {
			if !yield(t[i].Key) || t[i].Letter != "" && !yield(t[i].Letter) {
				return
			}
		}
	}
}

// Help returns the Option of every row, in the table's order: what a
// format's OptionHelp returns.
func (t Table[O]) Help() []Option {
	help := make([]Option, len(t))
	for i := range t {
		help[i] = t[i].Option
	}
	return help
}

// Parse sets the option key, a row's Key or Letter, to value on o: it
// calls the row's Set with the row's Key. For a key that no row has it
// returns unknown(key), the format's own error for it, and leaves o as it
// was.
func (t Table[O]) Parse(o *O, key, value string, unknown func(key string) error) error {
	s := t.Lookup(key)
	if s == nil {
		return unknown(key)
	}
	return s.Set(o, s.Key, value)
}

// Number reads value, given to the numeric option key, as makefs
// reads one (ParseNumber: base 10, suffixes, products), from lo to hi; no
// value is 1, as makefs's set_option_var makes a numeric option given
// without one. Errors wrap errOption, the format's sentinel for a bad
// option, and name the key: `msdos: bad option: fat_type: "8": number out
// of range: 8 is not between 12 and 255`.
func Number(errOption error, key, value string, lo, hi int64) (int64, error) {
	if value == "" {
		if lo > 1 {
			return 0, fmt.Errorf("%w: %s: 1 is out of range (at least %d)", errOption, key, lo)
		}
		return 1, nil
	}
	v, err := ParseNumber(value, lo, hi)
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %v", errOption, key, err)
	}
	return v, nil
}
