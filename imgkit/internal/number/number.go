// Package number reads numbers in the grammars of the BSD tools
// fixturegen copies, so that each command reads its numbers as the tool
// it copies does and no package keeps a grammar of its own: Strsuftoll is
// makefs(8)'s (imgkit/makefs/fsopt), ExpandNumber is expand_number(3), as
// mkimg(1) reads sizes (imgkit/mkimg), and Strtoll is strtoll(3) in base
// 0, as mkimg reads -t.
package number

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// The errors of the package's parsers, wrapped with the text read.
var (
	// ErrNumber reports text that is not a number of the grammar.
	ErrNumber = errors.New("illegal number")
	// ErrNumberRange reports a number outside the range asked for or the
	// grammar's type.
	ErrNumberRange = errors.New("number out of range")
)

// spaces are the bytes isspace(3) accepts in the C locale.
const spaces = " \t\n\v\f\r"

// Strsuftoll reads a number as makefs(8) reads every numeric option
// (strsuftoll in its sources): an optional sign and decimal digits, after
// optional leading blanks, with an optional suffix b (512), k (1024),
// m (1024^2), g (1024^3), t (1024^4) or w (4, the size of an int); such a
// number followed by 'x' (or the older '*') and another number is their
// product. A leading zero does not make a number octal. Each factor and
// the result must lie in [min, max]; an error wraps ErrNumber or
// ErrNumberRange.
func Strsuftoll(s string, min, max int64) (int64, error) {
	n, err := parseFactor(strings.TrimLeft(s, spaces), min, max)
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

// suffix returns the multiplier of a strsuftoll size suffix, or 0.
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

// ExpandNumber reads a number as expand_number(3) does: an unsigned
// integer in decimal, 0x hexadecimal or 0 octal, then at most one suffix
// b, k, m, g, t, p or e (either case) multiplying it by a power of 1024.
// An error wraps ErrNumber or ErrNumberRange.
func ExpandNumber(s string) (uint64, error) {
	end := len(s)
	shift := 0
	if end > 0 {
		if i := strings.IndexByte("bkmgtpe", lower(s[end-1])); i >= 0 {
			shift = 10 * i
			end--
		}
	}
	digits := strings.ToLower(s[:end])
	if digits == "" || strings.ContainsAny(digits, "_+-") || strings.HasPrefix(digits, "0b") || strings.HasPrefix(digits, "0o") {
		return 0, fmt.Errorf("%q: %w", s, ErrNumber)
	}
	n, err := strconv.ParseUint(digits, 0, 64)
	if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("%q: %w", s, ErrNumberRange)
	}
	if err != nil {
		return 0, fmt.Errorf("%q: %w", s, ErrNumber)
	}
	if shift > 0 && bits.LeadingZeros64(n) < shift {
		return 0, fmt.Errorf("%q: %w", s, ErrNumberRange)
	}
	return n << shift, nil
}

// lower returns c in lower case when it is an ASCII letter.
func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// Strtoll reads a whole string as strtoll(3) with base 0 does: optional
// leading blanks and sign, then 0x or 0X and hexadecimal digits, 0 and
// octal digits, or decimal digits; nothing may follow. An error wraps
// ErrNumber, or ErrNumberRange outside int64.
func Strtoll(s string) (int64, error) {
	t := strings.TrimLeft(s, spaces)
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-'
		t = t[1:]
	}
	base := 10
	switch {
	case len(t) > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X') && isDigit(t[2], 16):
		base, t = 16, t[2:]
	case len(t) > 1 && t[0] == '0':
		base, t = 8, t[1:]
	}
	if t == "" {
		return 0, fmt.Errorf("%q: %w", s, ErrNumber)
	}
	var u uint64
	for i := 0; i < len(t); i++ {
		if !isDigit(t[i], base) {
			return 0, fmt.Errorf("%q: %w", s, ErrNumber)
		}
		hi, lo := bits.Mul64(u, uint64(base))
		lo, carry := bits.Add64(lo, uint64(digitValue(t[i])), 0)
		if hi != 0 || carry != 0 || lo > 1<<63 {
			return 0, fmt.Errorf("%q: %w", s, ErrNumberRange)
		}
		u = lo
	}
	if !neg && u == 1<<63 {
		return 0, fmt.Errorf("%q: %w", s, ErrNumberRange)
	}
	if neg {
		return -int64(u), nil
	}
	return int64(u), nil
}

// isDigit reports whether c is a digit of base 8, 10 or 16.
func isDigit(c byte, base int) bool {
	return digitValue(c) < base
}

// digitValue is the value of the digit c, or 16 when c is none.
func digitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return 16
}
