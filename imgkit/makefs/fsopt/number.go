package fsopt

import "github.com/fixturegen/fixturegen/imgkit/internal/number"

// Errors of ParseNumber.
var (
	ErrNumber      = number.ErrNumber
	ErrNumberRange = number.ErrNumberRange
)

// ParseNumber reads a number as makefs(8) reads every numeric option, its
// own and every fs-option of every type (strsuftoll in its sources): an
// optional sign and decimal digits, after optional leading blanks, with an
// optional suffix b (512), k (1024), m (1024^2), g (1024^3), t (1024^4) or
// w (4, the size of an int); such a number followed by 'x' (or the older
// '*') and another number is their product. A leading zero does not make
// a number octal. Each factor and the result must lie in [min, max]; an
// error wraps ErrNumber or ErrNumberRange. The grammar is
// imgkit/internal/number's Strsuftoll, which mkimg's numbers sit beside.
func ParseNumber(s string, min, max int64) (int64, error) {
	return number.Strsuftoll(s, min, max)
}
