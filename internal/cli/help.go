package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/makefs"
	"github.com/fixturegen/fixturegen/imgkit/mkimg"
)

func init() {
	register(command{
		Name:    "help",
		Usage:   "help [command]",
		Summary: "show the list of commands, or the usage of one",
		Run:     runHelp,
	})
}

// printUsage writes the program's usage and the list of commands to w.
func printUsage(w io.Writer) {
	var b strings.Builder
	b.WriteString("usage: fixturegen <command> [arguments]\n")
	writeFlags(&b, []flagGroup{{
		Title: "fixturegen makes, as FreeBSD's makefs(8) and mkimg(1), e2fsprogs' mke2fs(8),\nar(1) and GNU cpio(1) would and the same on every run:",
		Flags: madeHelp(),
	}})
	b.WriteString("ls, cat and diff read them back.\n\nCommands:\n")
	width := 0
	list := slices.DeleteFunc(sortedCommands(), func(c *command) bool { return c.hidden })
	for _, c := range list {
		width = max(width, len(c.Name))
	}
	for _, c := range list {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, c.Name, c.Summary)
	}
	b.WriteString("\nRun 'fixturegen help <command>' for the usage of a command.\n")
	io.WriteString(w, b.String())
}

// madeHelp lists what fixturegen makes, from the registries: the makefs
// types, with what each makes, the mkimg schemes and formats, ext and
// the archives.
func madeHelp() []flagHelp {
	var types []string
	for _, name := range makefs.Types() {
		if t, ok := makefs.Lookup(name); ok && t.Description != "" {
			name += " (" + t.Description + ")"
		}
		types = append(types, name)
	}
	return []flagHelp{
		{"file system images", "makefs -t " + strings.Join(types, ", ") + "; mke2fs -t ext2, ext3, ext4"},
		{"partitioned disks", "mkimg -s " + strings.Join(mkimg.Schemes(), ", ") + ", as -f " + strings.Join(mkimg.Formats(), ", ")},
		{"archives", "ar archives, with their ranlib index; cpio archives (initramfs)"},
	}
}

// runHelp prints the usage of the program, or of the command named in args,
// to standard output.
func runHelp(e *env, args []string) error {
	switch len(args) {
	case 0:
		printUsage(e.Stdout)
		return nil
	case 1:
	default:
		return usagef("help: too many arguments")
	}
	c, ok := commands[args[0]]
	if !ok {
		return usagef("help: unknown command %q; run 'fixturegen help' for the list", args[0])
	}
	var b strings.Builder
	fmt.Fprintf(&b, "usage: fixturegen %s\n\n%s\n", c.Usage, capitalize(c.Summary)+".")
	if c.Flags != nil {
		writeFlags(&b, c.Flags())
	}
	help := c.Help
	if c.More != nil {
		help += c.More()
	}
	if help != "" {
		b.WriteString("\n")
		b.WriteString(strings.TrimLeft(help, "\n"))
		if !strings.HasSuffix(help, "\n") {
			b.WriteString("\n")
		}
	}
	if len(c.Examples) > 0 {
		writeExamples(&b, c.Examples)
	}
	if c.Name == "makefs" {
		b.WriteString("\n")
		b.WriteString(makefsTypesHelp())
	}
	_, err := io.WriteString(e.Stdout, b.String())
	return err
}

// capitalize upper-cases the first letter of an ASCII sentence.
func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
