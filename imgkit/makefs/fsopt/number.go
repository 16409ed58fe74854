package fsopt

import (
	"errors"
	"fmt"
	"math/bits"
	"strings"
)

// Errors of ParseNumber.
var (
	ErrNumber      = errors.New("illegal number")
	ErrNumberRange = errors.New("number out of range")
)

// ParseNumber reads a number as makefs(8) reads every numeric option, its
// own and every fs-option of every type (strsuftoll in its sources): an
// optional sign and decimal digits, after optional leading blanks, with an
// optional suffix b (512), k (1024), m (1024^2), g (1024^3), t (1024^4) or
// w (4, the size of an int); such a number followed by 'x' (or the older
// '*') and another number is their product. A leading zero does not make
// a number octal. Each factor and the result must lie in [min, max]; an
// error wraps ErrNumber or ErrNumberRange.
func ParseNumber(s string, min, max int64) (int64, error) {
	n, err := parseFactor(strings.TrimLeft(s, " \t\n\v\f\r"), min, max)
	if err != nil {
		return 0, fmt.Errorf("%q: %w", s, err)
	}
	return n, nil
}

// parseFactor reads one number with its suffix and, after an 'x' or '*',
// the rest of the product.
func parseFactor(s string, min, max int64) (int64, error) {
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	var u uint64
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		hi, lo := bits.Mul64(u, 10)
		lo, carry := bits.Add64(lo, uint64(s[i]-'0'), 0)
		if hi != 0 || carry != 0 || lo > 1<<63 {
			return 0, ErrNumberRange
		}
		u = lo
		i++
	}
	if i == start {
		return 0, ErrNumber
	}
	if !neg && u == 1<<63 {
		return 0, ErrNumberRange
	}
	n := int64(u)
	if neg {
		n = -n
	}
	if i < len(s) {
		if mul := suffix(s[i]); mul != 0 {
			var ok bool
			if n, ok = mulInt64(n, mul); !ok {
				return 0, ErrNumberRange
			}
			i++
		}
	}
	if i < len(s) {
		if s[i] != 'x' && s[i] != '*' {
			return 0, ErrNumber
		}
		m, err := parseFactor(s[i+1:], min, max)
		if err != nil {
			return 0, err
		}
		var ok bool
		if n, ok = mulInt64(n, m); !ok {
			return 0, ErrNumberRange
		}
	}
	if n < min || n > max {
		return 0, fmt.Errorf("%w: %d is not between %d and %d", ErrNumberRange, n, min, max)
	}
	return n, nil
}

// suffix returns the multiplier of a size suffix, or 0.
func suffix(c byte) int64 {
	switch c {
	case 'b':
		return 512
	case 'k':
		return 1 << 10
	case 'm':
		return 1 << 20
	case 'g':
		return 1 << 30
	case 't':
		return 1 << 40
	case 'w':
		return 4
	}
	return 0
}

// mulInt64 returns a*b and whether it did not overflow.
func mulInt64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	p := a * b
	if p/b != a || (a == -1 && b == -1<<63) || (b == -1 && a == -1<<63) {
		return 0, false
	}
	return p, true
}
