package msdos

import "strings"

// A short name's bytes of 0x80 and above are characters of an OEM code
// page, which the directory entry does not record: DOS and Windows use the
// system's (437 in the US, 850 in western Europe). This reader decodes
// them as code page 850 because that is what the FAT readers this
// project's images are checked against show: mtools ("By default, code
// page 850 is used", mtools.conf(5); mdir shows byte 0xE4 as õ) and
// dosfstools (fsck.fat -l, "By default codepage 850 is used"); Linux's
// vfat mounts with codepage=437 by default and would show 0xE4 as Σ. The
// two code pages agree on the accented letters both have at the same
// bytes (0x80-0x9A, 0xA0-0xA5 and others) and differ mostly where 437 has
// Greek, mathematical and box-drawing characters. Any byte gives a valid
// rune, so every short name decodes to valid UTF-8.

// cp850 maps the bytes 0x80..0xFF of code page 850 to their Unicode
// characters (Python's cp850 codec and fsck.fat -l agree on every one;
// TestShortNameCodePage checks them against fsck.fat).
var cp850 = [128]rune{
	'\u00c7', '\u00fc', '\u00e9', '\u00e2', '\u00e4', '\u00e0', '\u00e5', '\u00e7', // 0x80
	'\u00ea', '\u00eb', '\u00e8', '\u00ef', '\u00ee', '\u00ec', '\u00c4', '\u00c5', // 0x88
	'\u00c9', '\u00e6', '\u00c6', '\u00f4', '\u00f6', '\u00f2', '\u00fb', '\u00f9', // 0x90
	'\u00ff', '\u00d6', '\u00dc', '\u00f8', '\u00a3', '\u00d8', '\u00d7', '\u0192', // 0x98
	'\u00e1', '\u00ed', '\u00f3', '\u00fa', '\u00f1', '\u00d1', '\u00aa', '\u00ba', // 0xa0
	'\u00bf', '\u00ae', '\u00ac', '\u00bd', '\u00bc', '\u00a1', '\u00ab', '\u00bb', // 0xa8
	'\u2591', '\u2592', '\u2593', '\u2502', '\u2524', '\u00c1', '\u00c2', '\u00c0', // 0xb0
	'\u00a9', '\u2563', '\u2551', '\u2557', '\u255d', '\u00a2', '\u00a5', '\u2510', // 0xb8
	'\u2514', '\u2534', '\u252c', '\u251c', '\u2500', '\u253c', '\u00e3', '\u00c3', // 0xc0
	'\u255a', '\u2554', '\u2569', '\u2566', '\u2560', '\u2550', '\u256c', '\u00a4', // 0xc8
	'\u00f0', '\u00d0', '\u00ca', '\u00cb', '\u00c8', '\u0131', '\u00cd', '\u00ce', // 0xd0
	'\u00cf', '\u2518', '\u250c', '\u2588', '\u2584', '\u00a6', '\u00cc', '\u2580', // 0xd8
	'\u00d3', '\u00df', '\u00d4', '\u00d2', '\u00f5', '\u00d5', '\u00b5', '\u00fe', // 0xe0
	'\u00de', '\u00da', '\u00db', '\u00d9', '\u00fd', '\u00dd', '\u00af', '\u00b4', // 0xe8
	'\u00ad', '\u00b1', '\u2017', '\u00be', '\u00b6', '\u00a7', '\u00f7', '\u00b8', // 0xf0
	'\u00b0', '\u00a8', '\u00b7', '\u00b9', '\u00b3', '\u00b2', '\u25a0', '\u00a0', // 0xf8
}

// oemString decodes the bytes of a short name as code page 850.
func oemString(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	b.Grow(2 * len(s))
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 {
			b.WriteRune(cp850[c-0x80])
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}
