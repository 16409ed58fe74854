package cli

import (
	"sort"
	"strings"
)

// A command's help lists its flags one a line, under a title, and ends
// with examples, as a manual page's synopsis and EXAMPLES do. The flags
// of makefs, mkimg and ar come from their parsers' lists (an option
// string, the long options), each said by a table here keyed by the
// flag's name; help_flags_test.go checks that each table says every flag
// its parser reads and no other.

// flagGroup is a titled list of flags: "Flags:", "Modifiers:".
type flagGroup struct {
	Title string
	Flags []flagHelp
}

// flagHelp is one line of a flag list: the flag as it is typed, with its
// argument ("-s image-size"), and what it does. A "\n" in Text starts a
// new line; one that then starts with blanks is kept as written, to
// show a small table.
type flagHelp struct {
	Flag, Text string
}

// flagText says one flag of a parser's list: the name of its argument
// ("" for none; for a long option, with the '=' or blank that comes
// before it) and what the flag does.
type flagText struct {
	Arg, Text string
}

// example is one example of a command line, without the program name,
// and what it makes.
type example struct {
	Args, What string
}

// getoptFlags lists the flags of a getopt(3) option string and of the
// long options, with the words of texts (keyed by letter or long name):
// the letters sorted as a manual page sorts them (by letter in any case,
// the upper-case one first), then the long options sorted.
func getoptFlags(short string, long []string, texts map[string]flagText) []flagHelp {
	var flags []flagHelp
	for _, c := range sortedLetters(strings.ReplaceAll(short, ":", "")) {
		l := string(c)
		t := texts[l]
		f := "-" + l
		if t.Arg != "" {
			f += " " + t.Arg
		}
		flags = append(flags, flagHelp{f, t.Text})
	}
	long = append([]string(nil), long...)
	sort.Strings(long)
	for _, name := range long {
		t := texts[name]
		flags = append(flags, flagHelp{"--" + name + t.Arg, t.Text})
	}
	return flags
}

// sortedLetters returns the ASCII letters of set sorted as a manual page
// sorts them: by letter in any case, the upper-case one first.
func sortedLetters(set string) string {
	b := []byte(set)
	sort.Slice(b, func(i, j int) bool {
		x, y := b[i]|0x20, b[j]|0x20 // lower case
		if x != y {
			return x < y
		}
		return b[i] < b[j]
	})
	return string(b)
}

// flagColumn is the width of the flag column; a longer flag has its text
// on the next line.
const flagColumn = 19

// helpWidth is the width help text is wrapped to.
const helpWidth = 78

// writeFlags writes each group: its title, then a line per flag, the flag
// two blanks in and its text in a column after it, wrapped to helpWidth.
func writeFlags(b *strings.Builder, groups []flagGroup) {
	indent := strings.Repeat(" ", 2+flagColumn+2)
	for _, g := range groups {
		b.WriteString("\n" + g.Title + "\n")
		for _, f := range g.Flags {
			head := "  " + f.Flag
			if len(f.Flag) > flagColumn {
				b.WriteString(head + "\n")
				head = indent
			} else {
				head += strings.Repeat(" ", len(indent)-len(head))
			}
			for i, line := range wrapText(f.Text, helpWidth-len(indent)) {
				if i > 0 {
					head = indent
				}
				b.WriteString(strings.TrimRight(head+line, " ") + "\n")
			}
		}
	}
}

// wrapText breaks s into lines of at most width bytes at blanks; a "\n"
// in s breaks the line, and a line that starts with a blank is kept as
// it is.
func wrapText(s string, width int) []string {
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		if strings.HasPrefix(para, " ") {
			lines = append(lines, para)
			continue
		}
		line := ""
		for _, w := range strings.Fields(para) {
			if line != "" && len(line)+1+len(w) > width {
				lines = append(lines, line)
				line = ""
			}
			if line != "" {
				line += " "
			}
			line += w
		}
		lines = append(lines, line)
	}
	return lines
}

// writeExamples writes the examples, each command line two blanks in,
// with what it makes on the lines under it.
func writeExamples(b *strings.Builder, examples []example) {
	b.WriteString("\nExamples:\n")
	for i, x := range examples {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("  fixturegen " + x.Args + "\n")
		for _, line := range wrapText(x.What, helpWidth-6) {
			b.WriteString("      " + line + "\n")
		}
	}
}
