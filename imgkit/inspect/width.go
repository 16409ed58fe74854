package inspect

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// cellWidth returns how many terminal cells s takes, as a listing's
// columns are aligned by: 2 for East Asian wide and fullwidth characters
// (CJK ideographs, Hangul, kana, fullwidth forms, emoji), 0 for combining
// marks and zero-width format characters (which join the character before
// them), 1 for every other character and for each byte that is not UTF-8
// (a terminal shows one replacement character for it). Counting bytes
// would misalign a column holding a decoded FAT short name ("AéÇ.TXT" is 10
// bytes and 7 cells), and counting runes one holding a Joliet or Rock Ridge
// name in Chinese or Japanese.
func cellWidth(s string) int {
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			n++
		case zeroWidth(r):
		case wide(r):
			n += 2
		default:
			n++
		}
	}
	return n
}

// zeroWidth reports whether r takes no cell of its own: a combining mark
// (Unicode categories Mn and Me), a zero-width space, joiner or mark, a
// variation selector, or the byte-order mark.
func zeroWidth(r rune) bool {
	switch {
	case unicode.In(r, unicode.Mn, unicode.Me):
		return true
	case r >= 0x200B && r <= 0x200F, r == 0x2060, r == 0xFEFF, r >= 0xFE00 && r <= 0xFE0F:
		return true
	}
	return false
}

// wideRanges are the blocks of East Asian wide and fullwidth characters
// (Unicode's EastAsianWidth W and F) that terminals draw in two cells,
// sorted by start.
var wideRanges = [...][2]rune{
	{0x1100, 0x115F},   // Hangul Jamo initial consonants
	{0x231A, 0x231B},   // watch, hourglass
	{0x2329, 0x232A},   // angle brackets
	{0x23E9, 0x23EC},   // media symbols
	{0x23F0, 0x23F0},   // alarm clock
	{0x23F3, 0x23F3},   // hourglass with flowing sand
	{0x25FD, 0x25FE},   // medium small squares
	{0x2614, 0x2615},   // umbrella, hot beverage
	{0x2648, 0x2653},   // zodiac
	{0x267F, 0x267F},   // wheelchair
	{0x2693, 0x2693},   // anchor
	{0x26A1, 0x26A1},   // high voltage
	{0x26AA, 0x26AB},   // circles
	{0x26BD, 0x26BE},   // soccer ball, baseball
	{0x26C4, 0x26C5},   // snowman, sun behind cloud
	{0x26CE, 0x26CE},   // ophiuchus
	{0x26D4, 0x26D4},   // no entry
	{0x26EA, 0x26EA},   // church
	{0x26F2, 0x26F3},   // fountain, golf
	{0x26F5, 0x26F5},   // sailboat
	{0x26FA, 0x26FA},   // tent
	{0x26FD, 0x26FD},   // fuel pump
	{0x2705, 0x2705},   // check mark
	{0x270A, 0x270B},   // fists
	{0x2728, 0x2728},   // sparkles
	{0x274C, 0x274C},   // cross mark
	{0x274E, 0x274E},   // negative squared cross mark
	{0x2753, 0x2755},   // question and exclamation ornaments
	{0x2757, 0x2757},   // heavy exclamation mark
	{0x2795, 0x2797},   // heavy plus, minus, division
	{0x27B0, 0x27B0},   // curly loop
	{0x27BF, 0x27BF},   // double curly loop
	{0x2B1B, 0x2B1C},   // large squares
	{0x2B50, 0x2B50},   // star
	{0x2B55, 0x2B55},   // heavy large circle
	{0x2E80, 0x303E},   // CJK radicals, Kangxi, ideographic description, CJK symbols and punctuation
	{0x3041, 0x33FF},   // Hiragana, Katakana, Bopomofo, Hangul compatibility Jamo, Kanbun, CJK strokes, enclosed CJK, compatibility
	{0x3400, 0x4DBF},   // CJK Extension A
	{0x4E00, 0x9FFF},   // CJK unified ideographs
	{0xA000, 0xA4CF},   // Yi
	{0xA960, 0xA97F},   // Hangul Jamo extended A
	{0xAC00, 0xD7A3},   // Hangul syllables
	{0xF900, 0xFAFF},   // CJK compatibility ideographs
	{0xFE10, 0xFE19},   // vertical forms
	{0xFE30, 0xFE6F},   // CJK compatibility forms, small form variants
	{0xFF00, 0xFF60},   // fullwidth forms
	{0xFFE0, 0xFFE6},   // fullwidth signs
	{0x16FE0, 0x18CFF}, // Tangut, Khitan and ideographic symbols
	{0x1B000, 0x1B2FF}, // Kana supplement and extensions, Nushu
	{0x1F004, 0x1F004}, // mahjong red dragon
	{0x1F0CF, 0x1F0CF}, // playing card black joker
	{0x1F18E, 0x1F18E}, // negative squared AB
	{0x1F191, 0x1F19A}, // squared CL..VS
	{0x1F200, 0x1F2FF}, // enclosed ideographic supplement
	{0x1F300, 0x1F64F}, // miscellaneous symbols and pictographs, emoticons
	{0x1F680, 0x1F6FF}, // transport and map symbols
	{0x1F7E0, 0x1F7EB}, // large coloured circles and squares
	{0x1F90C, 0x1F9FF}, // supplemental symbols and pictographs
	{0x1FA70, 0x1FAFF}, // symbols and pictographs extended A
	{0x20000, 0x2FFFD}, // CJK extensions B to F, compatibility supplement
	{0x30000, 0x3FFFD}, // CJK extensions G and H
}

// wide reports whether r is an East Asian wide or fullwidth character.
func wide(r rune) bool {
	if r < wideRanges[0][0] {
		return false
	}
	lo, hi := 0, len(wideRanges)
	for lo < hi {
		m := (lo + hi) / 2
		switch {
		case r < wideRanges[m][0]:
			hi = m
		case r > wideRanges[m][1]:
			lo = m + 1
		default:
			return true
		}
	}
	return false
}

// padRight returns s followed by spaces up to width cells.
func padRight(s string, width int) string {
	if n := cellWidth(s); n < width {
		return s + strings.Repeat(" ", width-n)
	}
	return s
}

// padLeft returns s preceded by spaces up to width cells.
func padLeft(s string, width int) string {
	if n := cellWidth(s); n < width {
		return strings.Repeat(" ", width-n) + s
	}
	return s
}
