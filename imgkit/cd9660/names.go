package cd9660

// File identifiers as FreeBSD's makefs makes them (cd9660.c): conversion
// of a name to ISO 9660 d-characters for interchange levels 1 and 2, the
// order of a directory's records, and the renaming of names that collide
// after conversion.

// nameBufLen is the size of makefs's identifier buffers
// (ISO_FILENAME_MAXLENGTH); bytes past a name are zero.
const nameBufLen = 38

// nameBeforeVersion is ISO_FILENAME_MAXLENGTH_BEFORE_VERSION: the
// comparison of identifiers looks at the first nameBeforeVersion-1 bytes
// of the name and of the extension.
const nameBeforeVersion = 30

// isoName is a file identifier in makefs's zero-padded buffer.
type isoName [nameBufLen]byte

// nameRules are the options that change how names convert.
type nameRules struct {
	level              int  // interchange level: 1, else 2 (3 converts as 2)
	allowMultidot      bool // level 2: keep the dots after the first in a file name
	omitTrailingPeriod bool // no "." before ";1" in a file name without an extension
	debianLevel1       bool // as Debian's makefs converts names (see convertLevel1 and convertLevel2)
	archimedes         bool // cut a RISC OS file type ",xxx" off the name (archimedes.go)
}

// convert makes the identifier of the name: upper case, characters other
// than letters and digits as "_", the length limits of the level, ";1"
// after a file name. It returns the identifier and its length.
func (r nameRules) convert(name string, isFile bool) (isoName, int) {
	var out isoName
	var n int
	if r.level == 1 {
		n = r.convertLevel1(name, isFile, &out)
	} else {
		n = r.convertLevel2(name, isFile, &out)
	}
	return out, n
}

// dchar maps one byte of a name to a d-character: lower-case letters to
// upper case, letters and digits as they are, anything else to "_".
func dchar(c byte) byte {
	switch {
	case c >= 'a' && c <= 'z':
		return c - 'a' + 'A'
	case c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return c
	}
	return '_'
}

// convertLevel1 is cd9660_level1_convert_filename: 8 characters of name,
// the first dot, 3 characters of extension (later dots become "_"). It
// writes the identifier to out and returns its length. Debian's makefs
// stops at the fourth character of the extension only when it is not a
// dot, so a dot there lifts the limit ("a.bcd.efgh" is "A.BCD_EFGH");
// its identifiers are cut to the buffer here.
func (r nameRules) convertLevel1(name string, isFile bool, out *isoName) int {
	o, namelen, extlen, foundExt := 0, 0, 0, false
	for i := 0; i < len(name) && (extlen < 3 || r.debianLevel1) && o < nameBufLen-3; i++ {
		c := name[i]
		if r.debianLevel1 && c != '.' && extlen == 3 {
			break
		}
		if c == '.' {
			if foundExt {
				out[o] = '_'
				extlen++
			} else {
				out[o] = '.'
				foundExt = true
			}
			o++
			continue
		}
		if namelen == 8 && !foundExt || r.riscosType(name, i) {
			break
		}
		out[o] = dchar(c)
		o++
		if foundExt {
			extlen++
		} else {
			namelen++
		}
	}
	return r.addVersion(out, o, isFile, foundExt)
}

// convertLevel2 is cd9660_level2_convert_filename: 30 characters of name
// and extension for a file (31 for a directory, whose dots become "_").
func (r nameRules) convertLevel2(name string, isFile bool, out *isoName) int {
	maxlen, dots := 31, isFile
	if isFile || r.debianLevel1 {
		// Debian's makefs cuts directory names at 30 characters too, and
		// gives them an extension as it gives files one.
		maxlen, dots = 30, true
	}
	o, namelen, extlen, foundExt := 0, 0, 0, false
	for i := 0; i < len(name) && namelen+extlen < maxlen; i++ {
		c := name[i]
		switch {
		case c == '.' && dots && foundExt:
			out[o] = '_'
			if r.allowMultidot {
				out[o] = '.'
			}
			extlen++
		case c == '.' && dots:
			out[o] = '.'
			foundExt = true
		case r.riscosType(name, i):
			return r.addVersion(out, o, isFile, foundExt)
		default:
			out[o] = dchar(c)
			if foundExt {
				extlen++
			} else {
				namelen++
			}
		}
		o++
	}
	return r.addVersion(out, o, isFile, foundExt)
}

// riscosType reports whether name[i:] is a RISC OS file type ",xxx" that
// archimedes cuts off.
func (r nameRules) riscosType(name string, i int) bool {
	return r.archimedes && name[i] == ',' && len(name)-i == 4
}

// addVersion ends a file identifier with the separator "." (unless the
// name has one or omit-trailing-period is on) and the version ";1", and
// returns the identifier's length.
func (r nameRules) addVersion(out *isoName, o int, isFile, foundExt bool) int {
	if !isFile {
		return o
	}
	if !foundExt && !r.omitTrailingPeriod {
		out[o] = '.'
		o++
	}
	out[o], out[o+1] = ';', '1'
	return o + 2
}

// byteAt returns s[i] as a C char, or 0 past the end of s (as past the
// terminator of makefs's buffers).
func byteAt(s []byte, i int) int8 {
	if i < len(s) {
		return int8(s[i])
	}
	return 0
}

// compareNames is cd9660_compare_filename: the names before the first dot
// are compared as if the shorter were padded with blanks, then, when both
// have a dot there, the extensions before ";" likewise; each part is
// looked at up to nameBeforeVersion-1 bytes. It returns -1, 0 or 1.
func compareNames(a, b []byte) int {
	p1, p2 := 0, 0
	if r, done := comparePart(a, b, &p1, &p2, '.'); done {
		return r
	}
	if byteAt(a, p1) == '.' && byteAt(b, p2) == '.' {
		p1++
		p2++
		if r, done := comparePart(a, b, &p1, &p2, ';'); done {
			return r
		}
	}
	return 0
}

// comparePart compares a from *p1 and b from *p2 up to the separator sep,
// a separator reading as a blank against the other name's character. It
// reports the order when the parts differ.
func comparePart(a, b []byte, p1, p2 *int, sep int8) (int, bool) {
	for *p1 < nameBeforeVersion-1 && *p2 < nameBeforeVersion-1 {
		c1, c2 := byteAt(a, *p1), byteAt(b, *p2)
		switch {
		case c1 == sep && c2 == sep:
			return 0, false
		case c1 == sep:
			*p2++
			c1 = ' '
		case c2 == sep:
			*p1++
			c2 = ' '
		default:
			*p1++
			*p2++
		}
		if c1 < c2 {
			return -1, true
		}
		if c1 > c2 {
			return 1, true
		}
	}
	return 0, false
}

// cstrcmp is strcmp(3) on the C strings in a and b.
func cstrcmp(a, b []byte) int {
	for i := 0; ; i++ {
		var c1, c2 byte
		if i < len(a) {
			c1 = a[i]
		}
		if i < len(b) {
			c2 = b[i]
		}
		if c1 != c2 {
			if c1 < c2 {
				return -1
			}
			return 1
		}
		if c1 == 0 {
			return 0
		}
	}
}

// renameRange is cd9660_rename_filename: it gives the num records from
// index first of d's children the digits 0, 1, ... inserted into their
// names before the last delete bytes that fit, and returns the index after
// them. As in makefs, a record keeps its identifier length, so a longer
// new name is cut there.
func (r nameRules) renameRange(d *isoNode, first, num, deleteChars int) int {
	maxlength := 31
	if r.level == 1 {
		maxlength = 8
	}
	i := 0
	for ; i < num && first+i < len(d.children); i++ {
		c := d.children[first+i]
		c.name = renamed(c.name, c.oName, i, maxlength, deleteChars)
	}
	return first + i
}

// renamed builds one name of renameRange: the name o before renaming
// with the decimal digits of i, written over the start of the current
// identifier cur with its terminating zero (bytes after it stay).
func renamed(cur, o isoName, i, maxlength, deleteChars int) isoName {
	digits, powers := 1, 1
	for i/powers >= 10 {
		digits++
		powers *= 10
	}
	count := 0
	for count < maxlength && o[count] != ';' {
		count++
	}
	numbts := maxlength - digits
	if count+digits < maxlength {
		numbts = count
	}
	numbts -= deleteChars
	var tmp isoName
	copy(tmp[:], o[:max(numbts, 0)])
	numbts = max(numbts, 0)
	for t := i; digits > 0; digits-- {
		d := t / powers
		t -= d * powers
		tmp[numbts] = byte('0' + d)
		numbts++
		powers /= 10
	}
	for p := count; p < nameBufLen && o[p] != ';' && numbts < maxlength; p++ {
		tmp[numbts] = o[p]
		numbts++
	}
	tmp[numbts], tmp[numbts+1] = ';', '1'
	copy(cur[:numbts+3], tmp[:])
	return cur
}

// countCollisions is cd9660_count_collisions: how many of the children
// after index i compare equal to their predecessor, counting from i.
func countCollisions(d *isoNode, i int) int {
	count := 0
	for ; i+1 < len(d.children); i++ {
		if compareNames(d.children[i].name[:], d.children[i+1].name[:]) != 0 {
			break
		}
		count++
	}
	return count
}

// handleCollisions is cd9660_handle_collisions: each run of children with
// equal identifiers is renamed, past being the number of rounds before
// this one. It reports whether any run was found.
func (r nameRules) handleCollisions(d *isoNode, past int) bool {
	found := false
	deleteChars := 0
	for i := 0; i+1 < len(d.children); {
		if cstrcmp(d.children[i].name[:], d.children[i+1].name[:]) != 0 {
			i++
			continue
		}
		found = true
		skip := countCollisions(d, i)
		end := i + skip
		for range past {
			switch {
			case end+1 < len(d.children):
				end++
			case i > 0:
				i--
			default:
				deleteChars++
			}
		}
		i = r.renameRange(d, i, skip+past, deleteChars)
	}
	return found
}
