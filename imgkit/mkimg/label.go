package mkimg

import (
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// checkLabel checks slot i's label against the scheme: that it has
// labels, that a UTF-16 label is UTF-8 text, and that it fits, counted
// in the units the scheme stores.
func (l *layout) checkLabel(i int, label string) error {
	switch {
	case label == "":
		return nil
	case l.s.labelMax == 0:
		return fmt.Errorf("%w: partition %d: %s partitions have no labels", ErrPartition, i+1, l.scheme)
	case l.s.labelUTF16 && !utf8.ValidString(label):
		return fmt.Errorf("%w: partition %d: label %q is not UTF-8 text, which a %s label is stored from", ErrPartition, i+1, label, l.scheme)
	}
	n, unit := len(label), "bytes"
	if l.s.labelUTF16 {
		n, unit = len(utf16.Encode([]rune(label))), "UTF-16 units"
	}
	if n > l.s.labelMax {
		return fmt.Errorf("%w: partition %d: label %q is %d %s long; a %s label holds %d", ErrPartition, i+1, label, n, unit, l.scheme, l.s.labelMax)
	}
	return nil
}

// warnLabels writes to l.warn one line for each UTF-16 label that is not
// ASCII. FreeBSD's mkimg stores each byte of the label as a code unit of
// its own (the char sign-extended where char is signed, as on amd64),
// which no reader takes for the text given, so the disk differs from its;
// the line shows both for the label's first character past ASCII.
func (l *layout) warnLabels() {
	if l.warn == nil || l.s == nil || !l.s.labelUTF16 {
		return
	}
	for i := range l.parts {
		p := &l.parts[i]
		at := strings.IndexFunc(p.Label, func(r rune) bool { return r >= utf8.RuneSelf })
		if at < 0 {
			continue
		}
		r, n := utf8.DecodeRuneInString(p.Label[at:])
		var ours, unsigned, signed []string
		for _, u := range utf16.Encode([]rune{r}) {
			ours = append(ours, fmt.Sprintf("%02x %02x", byte(u), byte(u>>8)))
		}
		for _, b := range []byte(p.Label[at : at+n]) {
			unsigned = append(unsigned, fmt.Sprintf("%02x 00", b))
			signed = append(signed, fmt.Sprintf("%02x ff", b))
		}
		fmt.Fprintf(l.warn, "mkimg: warning: partition %d: label %q is written as UTF-16, %q as %s, where FreeBSD's mkimg writes each UTF-8 byte as a code unit, %s (%s on amd64)\n",
			p.index+1, p.Label, r, strings.Join(ours, " "), strings.Join(unsigned, " "), strings.Join(signed, " "))
	}
}
