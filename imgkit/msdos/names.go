package msdos

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// shortChar maps a character to the character stored for it in a short
// name: letters are upper-cased, characters a short name may not hold map
// to 0 (dropped). This is FreeBSD msdosfs's table with two changes, made
// because FreeBSD's choices give short names that fatgen103 forbids or
// that sleuthkit refuses to list: '+' is dropped (fatgen103 forbids it in
// short names) and so are non-ASCII characters (FreeBSD maps single bytes
// through a code-page table, which for UTF-8 names gives meaningless
// bytes; here short names stay ASCII and the long name carries the real
// name).
func shortChar(r rune) byte {
	switch {
	case r >= 'a' && r <= 'z':
		return byte(r - 'a' + 'A')
	case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return byte(r)
	}
	switch r {
	case '!', '#', '$', '%', '&', '\'', '(', ')', '-', '@', '^', '_', '`', '{', '}', '~':
		return byte(r)
	}
	return 0
}

// Results of shortName, named after what FreeBSD's unix2dosfn returns.
const (
	convInvalid = 0 // no short name can be made (or no room for the tail)
	convSame    = 1 // the short name is the name itself: no long name needed
	convCase    = 2 // the short name differs from the name but loses nothing
	convLossy   = 3 // characters were dropped; a ~N tail was inserted
)

// shortName makes the 11-byte short name of name with generation number
// gen (1 for the first try) following the rules of FreeBSD's msdosfs, which
// makefs uses: the extension is the part after the last dot that is
// followed by something other than dots and blanks (a leading dot does not
// start an extension), trailing dots and blanks are ignored, characters are
// mapped by shortChar, and a name that lost characters gets a "~gen" tail
// in its base part. It returns the name and one of the conv* results.
func shortName(name string, gen int) (dn [11]byte, conv int) {
	for i := range dn {
		dn[i] = ' '
	}
	u := []rune(name)
	if onlyDotsAndBlanks(u) {
		return dn, convInvalid
	}
	conv = convSame
	n := len(u)
	var baseEnd int
	if ext, end := shortExtension(u); ext >= 0 {
		_, conv = putShort(dn[8:], u[ext:end], conv)
		baseEnd = ext - 1
	} else {
		baseEnd = n
		for baseEnd > 0 && (u[baseEnd-1] == ' ' || u[baseEnd-1] == '.') {
			baseEnd--
		}
	}
	// FreeBSD keeps blanks of a base of 8 or fewer characters; they are
	// dropped here, as Windows does, since sleuthkit skips short names
	// with embedded blanks.
	var j int
	if j, conv = putShort(dn[:8], u[:baseEnd], conv); j == 0 {
		dn[0] = '_'
	}
	if dn[0] == slotDeleted {
		dn[0] = slotE5
	}
	if conv != convLossy {
		if gen > 1 {
			return dn, convInvalid
		}
		return dn, conv
	}
	if gen > 999999 {
		return dn, convInvalid
	}
	putGenTail(&dn, gen)
	return dn, convLossy
}

// onlyDotsAndBlanks reports whether u is empty or holds nothing but dots
// and blanks: a name no short name can be made of.
func onlyDotsAndBlanks(u []rune) bool {
	for _, r := range u {
		if r != ' ' && r != '.' {
			return false
		}
	}
	return true
}

// shortExtension returns where the extension of u starts and ends: after
// the last dot (not the first character) that something other than dots
// and blanks follows, up to a trailing run of dots if there is one. ext is
// -1 when u has no extension.
func shortExtension(u []rune) (ext, end int) {
	// trail is the index after a run of dots not (yet) followed by
	// anything else.
	ext, trail := -1, -1
	for i := 1; i < len(u); i++ {
		switch u[i] {
		case '.':
			if trail < 0 {
				trail = i + 1
			}
		case ' ':
		default:
			if trail >= 0 {
				ext = trail
			}
			trail = -1
		}
	}
	if ext >= 0 && trail >= 0 {
		return ext, trail
	}
	return ext, len(u)
}

// putGenTail writes "~gen" into the base part of dn, after its last
// non-blank character, or at its end when it does not fit there.
func putGenTail(dn *[11]byte, gen int) {
	tail := "~" + strconv.Itoa(gen)
	k := 8
	for k > 0 && dn[k-1] == ' ' {
		k--
	}
	if len(tail) > 8-k {
		k = 8 - len(tail)
	}
	copy(dn[k:], tail)
}

// putShort maps src by shortChar into dst, which holds blanks, and
// returns how many bytes it filled and conv updated: convCase when a
// character changed, convLossy when one was dropped or did not fit.
func putShort(dst []byte, src []rune, conv int) (int, int) {
	j := 0
	for _, r := range src {
		c := shortChar(r)
		switch {
		case c == 0:
			conv = convLossy
			continue
		case j == len(dst):
			return j, convLossy
		case rune(c) != r && conv != convLossy:
			conv = convCase
		}
		dst[j] = c
		j++
	}
	return j, conv
}

// forbiddenLong lists the printable characters a long name may not hold
// (fatgen103); control characters are forbidden as well.
const forbiddenLong = "\"*/:<>?\\|"

// checkName reports why name cannot be stored on FAT, or nil. It returns
// the name as UTF-16.
func checkName(name string) ([]uint16, error) {
	if !utf8.ValidString(name) {
		return nil, fmt.Errorf("name is not valid UTF-8")
	}
	for _, r := range name {
		if r < 0x20 || strings.ContainsRune(forbiddenLong, r) {
			return nil, fmt.Errorf("name holds %q, which FAT forbids", r)
		}
	}
	if strings.Trim(name, ". ") == "" {
		return nil, fmt.Errorf("name is only dots and blanks")
	}
	if strings.HasSuffix(name, ".") || strings.HasSuffix(name, " ") {
		return nil, fmt.Errorf("name ends in a dot or blank, which FAT drops")
	}
	w := utf16.Encode([]rune(name))
	if len(w) > maxLongNameLen {
		return nil, fmt.Errorf("name is %d UTF-16 units long; FAT allows %d", len(w), maxLongNameLen)
	}
	return w, nil
}

// foldName is the key under which names that differ only by case collide.
func foldName(name string) string {
	return strings.ToLower(strings.ToUpper(name))
}

// longSlots returns the number of long-name entries a name of n UTF-16
// units needs.
func longSlots(n int) int { return (n + charsPerSlot - 1) / charsPerSlot }

// putLongEntries writes the long-name entries for w in front of the short
// entry with checksum sum: dst receives len(w)/13 rounded up entries, the
// one with the highest ordinal (flagged lastLongOrd) first. Unused units
// after the name are a 0x0000 terminator then 0xFFFF padding; as in
// FreeBSD's msdosfs, a name of 254 or 255 units gets no terminator.
func putLongEntries(dst []byte, w []uint16, sum byte) {
	slots := longSlots(len(w))
	for k := slots; k >= 1; k-- {
		l := (*longEntry)(dst[(slots-k)*dirEntrySize:][:dirEntrySize])
		ord := byte(k)
		if k == slots {
			ord |= lastLongOrd
		}
		l.ord()[0] = ord
		l.attr()[0] = attrLongName
		l.typ()[0] = 0
		l.chksum()[0] = sum
		le.PutUint16(l.fstClusLO(), 0)
		for i := 0; i < charsPerSlot; i++ {
			p := (k-1)*charsPerSlot + i
			var u uint16
			switch {
			case p < len(w):
				u = w[p]
			case p == len(w) && len(w) < maxLongNameLen-1:
				u = 0
			default:
				u = 0xffff
			}
			l.setUnit(i, u)
		}
	}
}

// shortNameString renders an 11-byte short name as NAME.EXT, honouring the
// 0x05 stand-in for 0xE5, decoding bytes of 0x80 and above as code page 850
// (see oemString) and then the NTRes lower-case bits, which lower-case the
// decoded letters, accented ones included, as mtools' mdir does.
func shortNameString(dn []byte, ntres byte) string {
	var b [11]byte
	copy(b[:], dn)
	if b[0] == slotE5 {
		b[0] = slotDeleted
	}
	base := oemString(strings.TrimRight(string(b[:8]), " "))
	ext := oemString(strings.TrimRight(string(b[8:11]), " "))
	if ntres&ntLowerBase != 0 {
		base = strings.ToLower(base)
	}
	if ntres&ntLowerExt != 0 {
		ext = strings.ToLower(ext)
	}
	if ext == "" {
		return base
	}
	return base + "." + ext
}
