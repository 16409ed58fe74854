package fsopt

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestParseNumber(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"0", 0},
		{"100", 100},
		{"0100", 100}, // base 10, not octal
		{"  42", 42},
		{"+7", 7},
		{"-3", -3},
		{"1b", 512},
		{"2k", 2048},
		{"32k", 32768},
		{"1m", 1 << 20},
		{"3g", 3 << 30},
		{"1t", 1 << 40},
		{"5w", 20},
		{"512x2880", 1474560},
		{"512*2880", 1474560},
		{"2x3x4", 24},
		{"1kx2", 2048},
		{"2x1k", 2048},
		{"8388607t", 8388607 << 40},
		{"9223372036854775807", math.MaxInt64},
		{"-9223372036854775808", math.MinInt64},
	} {
		got, err := ParseNumber(c.in, math.MinInt64, math.MaxInt64)
		if err != nil || got != c.want {
			t.Errorf("ParseNumber(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct {
		in   string
		want error
	}{
		{"", ErrNumber},
		{"k", ErrNumber},
		{"12q", ErrNumber},
		{"1kk", ErrNumber},
		{"1x", ErrNumber},
		{"1 ", ErrNumber},
		{"9223372036854775808", ErrNumberRange},
		{"8388608t", ErrNumberRange},
		{"4294967296x4294967296", ErrNumberRange},
	} {
		_, err := ParseNumber(c.in, math.MinInt64, math.MaxInt64)
		if !errors.Is(err, c.want) {
			t.Errorf("ParseNumber(%q) error %v; want %v", c.in, err, c.want)
		}
	}
	// No hexadecimal: strsuftoll reads "0x10" as the product 0 × 10.
	if n, err := ParseNumber("0x10", 0, 10); err != nil || n != 0 {
		t.Errorf(`ParseNumber("0x10") = %d, %v; want the product 0`, n, err)
	}
	if _, err := ParseNumber("5", 1, 4); !errors.Is(err, ErrNumberRange) {
		t.Errorf("5 in [1,4]: %v, want ErrNumberRange", err)
	}
	if _, err := ParseNumber("0x5", 1, 10); !errors.Is(err, ErrNumberRange) {
		t.Errorf("a factor below min: %v, want ErrNumberRange (strsuftoll checks every factor)", err)
	}
}

// FuzzParseNumber checks that any string gives a number within the bounds
// or an error, never a panic, and that what is accepted is makefs syntax.
func FuzzParseNumber(f *testing.F) {
	for _, s := range []string{"1440k", "512x2880", "2bx3w", "0x10", "9223372036854775807", "1x%", " -4", "+2t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseNumber(s, -1<<40, 1<<50)
		if err != nil {
			return
		}
		if n < -1<<40 || n > 1<<50 {
			t.Fatalf("ParseNumber(%q) = %d, outside the bounds", s, n)
		}
		if strings.Trim(s, " \t\n\v\f\r+-0123456789bkmgtwx*") != "" {
			t.Fatalf("ParseNumber(%q) accepted a foreign character", s)
		}
	})
}
