package fsopt

import (
	"fmt"
	"strconv"
)

// Compat selects whose makefs(8) a writer follows where FreeBSD's current
// makefs and the Debian package (makefs 20190105, a port of NetBSD's of
// that time) differ. Each format that has the choice says in its own
// documentation what CompatDebian changes in its bytes.
type Compat int

const (
	// CompatFreeBSD follows FreeBSD's makefs (the zero value).
	CompatFreeBSD Compat = iota
	// CompatDebian gives the bytes of Debian's makefs.
	CompatDebian
)

// compatNames are the -o compat values, indexed by Compat.
var compatNames = [...]string{CompatFreeBSD: "freebsd", CompatDebian: "debian"}

// String returns the -o compat value that selects c: "freebsd" or
// "debian".
func (c Compat) String() string {
	if c >= 0 && int(c) < len(compatNames) {
		return compatNames[c]
	}
	return "Compat(" + strconv.Itoa(int(c)) + ")"
}

// ParseCompat returns the Compat that the -o compat value s selects.
// Errors wrap errOption, the format's sentinel for a bad option, and name
// the option and its values: `compat="netbsd": want freebsd or debian`.
func ParseCompat(errOption error, s string) (Compat, error) {
	for c, name := range compatNames {
		if s == name {
			return Compat(c), nil
		}
	}
	return 0, fmt.Errorf("%w: compat=%q: want %s or %s", errOption, s, CompatFreeBSD, CompatDebian)
}

// CompatRow returns the compat row of a format's option table: the key
// "compat" (no makefs(8) letter: the choice is fixturegen's), default
// "freebsd", usage as the format's help says it, setting *field(o) with
// ParseCompat.
func CompatRow[O any](errOption error, usage string, field func(o *O) *Compat) Spec[O] {
	return Spec[O]{
		Option: Option{Key: "compat", Field: "Compat", Default: CompatFreeBSD.String(), Usage: usage},
		Set: func(o *O, _, value string) error {
			c, err := ParseCompat(errOption, value)
			if err == nil {
				*field(o) = c
			}
			return err
		},
	}
}
