package number

import (
	"errors"
	"testing"
)

// TestExpandNumber checks expand_number(3)'s grammar.
func TestExpandNumber(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]uint64{
		"0": 0, "512": 512, "1k": 1024, "1K": 1024, "3m": 3 << 20, "2g": 2 << 30,
		"1t": 1 << 40, "1p": 1 << 50, "1e": 1 << 60, "7b": 7, "0x10": 16, "010": 8,
	} {
		got, err := ExpandNumber(in)
		if err != nil || got != want {
			t.Errorf("ExpandNumber(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for in, want := range map[string]error{
		"": ErrNumber, "k": ErrNumber, "1kk": ErrNumber, "-1": ErrNumber, "+1": ErrNumber,
		"1_000": ErrNumber, "0b1": ErrNumber, "1.5m": ErrNumber, " 1": ErrNumber,
		"16e": ErrNumberRange, "18446744073709551616": ErrNumberRange,
	} {
		if n, err := ExpandNumber(in); !errors.Is(err, want) {
			t.Errorf("ExpandNumber(%q) = %d, %v; want an error wrapping %v", in, n, err, want)
		}
	}
}

// TestStrtoll checks strtoll(3)'s base-0 grammar over a whole string.
func TestStrtoll(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{
		"0": 0, "1700000000": 1700000000, "-5": -5, "+7": 7, " 42": 42, "0x1F": 31,
		"0X10": 16, "017": 15, "-9223372036854775808": -1 << 63, "9223372036854775807": 1<<63 - 1,
	} {
		got, err := Strtoll(in)
		if err != nil || got != want {
			t.Errorf("Strtoll(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for in, want := range map[string]error{
		"": ErrNumber, "x": ErrNumber, "0x": ErrNumber, "08": ErrNumber, "1 ": ErrNumber,
		"1_0": ErrNumber, "0b1": ErrNumber, "12k": ErrNumber, "-": ErrNumber,
		"9223372036854775808": ErrNumberRange, "-9223372036854775809": ErrNumberRange,
	} {
		if n, err := Strtoll(in); !errors.Is(err, want) {
			t.Errorf("Strtoll(%q) = %d, %v; want an error wrapping %v", in, n, err, want)
		}
	}
}

// TestStrsuftoll checks makefs's grammar through the shared parser:
// suffixes, products, no octal, and the range.
func TestStrsuftoll(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{"10": 10, "010": 10, "2b": 1024, "1kx3": 3072, " -4": -4, "2w": 8} {
		if got, err := Strsuftoll(in, -100, 1<<20); err != nil || got != want {
			t.Errorf("Strsuftoll(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	if _, err := Strsuftoll("2m", 0, 1<<20); !errors.Is(err, ErrNumberRange) {
		t.Errorf("Strsuftoll(2m) past the maximum: %v", err)
	}
	if n, err := Strsuftoll("0x10", 0, 1<<20); n != 0 || err != nil {
		t.Errorf("Strsuftoll(0x10) = %d, %v; want 0, the product 0 x 10, not hexadecimal", n, err)
	}
	if _, err := Strsuftoll("1q", 0, 1<<20); !errors.Is(err, ErrNumber) {
		t.Errorf("Strsuftoll(1q): %v", err)
	}
}
