package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/mkimg"
	"github.com/fixturegen/fixturegen/internal/termline"
)

// The mkimg command accepts FreeBSD mkimg(1)'s command line. The library
// package imgkit/mkimg parses it and writes the disk; this file resolves
// its paths against the working directory, answers -h, --formats,
// --schemes and --version, and says its option errors as usage errors.

func init() {
	register(command{
		Name:    "mkimg",
		Usage:   "mkimg -s scheme -p partition ... [-c|-C|--capacity bytes] [-y] [-v] [-S secsz] [-P blksz] [-H heads] [-T track] [-a n] [-b bootcode] [-t time] [-f format] [--disk-guid GUID] [--partition-guid N=GUID] [-o disk] | --formats | --schemes | --version",
		Summary: "make a partitioned disk image (" + mkimgSchemesSummary() + "), as FreeBSD's mkimg(1) does",
		Flags:   mkimgFlags,
		Help: `Numbers take mkimg's syntax: decimal, 0x hexadecimal or 0 octal, with an
optional k, m, g, t, p or e suffix. -b, -f, -o and -s may be given once;
for the other options the last one counts.

On a terminal, a disk that takes more than a second shows on standard
error the step it is at and how far that is until it is done ("mkimg:
disk.qcow2: copying part.img 512.0 MiB / 1.5 GiB (33%)"; then hashing
for the GUIDs, scanning for data, writing the container).`,
		More:     mkimgSchemesHelp,
		Examples: mkimgExamples,
		Run:      runMkimg,
	})
}

// mkimgFlags lists the options mkimg.Parse reads, mkimg.OptString's and
// mkimg.LongOptions, each said by mkimgFlagTexts.
func mkimgFlags() []flagGroup {
	return []flagGroup{{
		Title: "Options, those of FreeBSD mkimg(1) for every scheme, and fixturegen's\n--disk-guid and --partition-guid:",
		Flags: getoptFlags(mkimg.OptString, mkimg.LongOptions(), mkimgFlagTexts()),
	}}
}

// mkimgFlagTexts says each option of mkimg's command line, by its letter
// or long name.
func mkimgFlagTexts() map[string]flagText {
	return map[string]flagText{
		"a": {"n", "the active MBR partition, 1 to 100"},
		"b": {"bootcode", "boot code, at most the scheme's size below"},
		"C": {"bytes", "maximum capacity: a larger disk is an error"},
		"c": {"bytes", "minimum capacity: a smaller disk is grown with zeros"},
		"f": {"format", mkimgFormatsHelp()},
		"H": {"heads", "simulated heads, 1 to 255"},
		"h": {"", "this help"},
		"o": {"disk", "the file to write; without -o the disk goes to standard output, unless that is a terminal"},
		"P": {"blksz", "physical block size, a power of two, at least secsz"},
		"p": {"partition", "a partition slot, in order; one of\n" +
			"  TYPE[/LABEL]::SIZE[:[+]OFFSET]   empty, of SIZE bytes\n" +
			"  TYPE[/LABEL]:=FILE[:[+]OFFSET]   the bytes of FILE\n" +
			"  TYPE[/LABEL]:-CMD                the standard output\n" +
			"                                   of /bin/sh -c CMD\n" +
			"  -                                an unused slot\n" +
			"OFFSET places the partition at that byte of the disk, +OFFSET leaves that gap before it; both are aligned as the scheme aligns partitions. " +
			"For := a FILE that exists under the whole name keeps its colons. TYPE is one of the scheme's aliases, listed below; as in FreeBSD, no raw GUID or number. " +
			"A CMD that exits non-zero is an error (mkimg ignores its status)."},
		"S": {"secsz", "logical sector size, a power of two, 512 to 4096"},
		"s": {"scheme", "one of the schemes below (any case); needed when there are partitions"},
		"T": {"track", "simulated sectors per track, 1 to 63"},
		"t": {"time", "a timestamp (seconds since the epoch, C syntax: 0x1f, 017), kept for container formats; raw records none"},
		"v": {"", "print the layout to standard error, as mkimg -v does"},
		"y": {"", "FreeBSD's test-mode GUIDs: freebsd-mkimg -y's bytes; without it the GUIDs are derived from the layout and the contents, so the same inputs give the same disk"},

		"capacity":       {" bytes", "both -c and -C; with it alone no scheme or partition is needed"},
		"disk-guid":      {" GUID", "fixturegen's own (mkimg has no such option): the GPT's disk GUID, as RFC 4122 text (8-4-4-4-12 hex digits)"},
		"formats":        {"", "list the formats written"},
		"partition-guid": {" N=GUID", "fixturegen's own: the unique GUID of the N'th -p slot (from 1; a used one), once per slot. A GPT GUID not given is derived; given all, no partition is read twice to hash it. Not with -y, nor the nil GUID, nor for a scheme without GUIDs (all but gpt)"},
		"schemes":        {"", "list the schemes written, as mkimg orders them"},
		"version":        {"", "print the mkimg version copied"},
	}
}

// mkimgExamples are the examples of "fixturegen help mkimg", each run by
// TestHelpExamplesRun after makefs's, whose images they take.
var mkimgExamples = []example{
	{"mkimg -s gpt -p efi:=floppy.img -p freebsd-ufs/root:=ufs.img -o disk.img", "a GPT disk with the FAT floppy as its EFI system partition and the UFS image as a partition labelled root"},
	{"mkimg -s mbr -b mbr.bin -p fat32::1m -p - -p freebsd:=ufs.img -a 3 -o mbr.img", "an MBR disk with boot code, an empty FAT32 partition, an unused slot and the UFS image in the active third slot"},
	{"mkimg -s gpt -f vmdk -p freebsd-ufs:=ufs.img -o disk.vmdk", "the same kind of disk as a VMware sparse disk, for a virtual machine"},
}

func runMkimg(e *env, args []string) error {
	o, err := parseMkimgArgs(e, args)
	if err != nil {
		return err
	}
	if o.Query != "" {
		return mkimgQuery(e, o.Query)
	}
	o.Log, o.Stderr, o.Dir = e.Stderr, e.Stderr, e.Dir
	o.Warn = fixturegenPrefix{e.Stderr}
	defer e.removeTempsOnSignal("mkimg")()
	if o.Output == "" {
		if isTerminal(e.Stdout) {
			return errNotToTerminal
		}
		disk, err := mkimg.Build(o)
		if err != nil {
			return fromMkimg(err)
		}
		_, err = e.Stdout.Write(disk)
		return err
	}
	e.removeLeftovers("mkimg", o.Output)
	o.Progress = e.progressMeter()
	return fromMkimg(e.showProgress("mkimg", o.Output, o.Progress, func(_, stderr io.Writer) error {
		o.Log, o.Stderr = stderr, stderr
		return mkimg.WriteFile(e.abs(o.Output), o)
	}))
}

// errNotToTerminal refuses a disk meant for standard output when that is a
// terminal, as gzip refuses its compressed data: the bytes would only
// garble the screen.
var errNotToTerminal = errors.New("mkimg: disk image not written to a terminal; give -o disk, or redirect standard output to a file or a pipe")

// isTerminal reports whether w is a terminal, as termline tells one.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && termline.IsTerminal(f)
}

// parseMkimgArgs parses mkimg's command line args as runMkimg runs it and
// the catalogue plans it: the files it names resolved against the working
// directory e.Dir.
func parseMkimgArgs(e *env, args []string) (*mkimg.Options, error) {
	o, err := mkimg.Parse(args)
	if err != nil {
		return nil, fromMkimg(err)
	}
	for i := range o.Partitions {
		if f := o.Partitions[i].File; f != "" {
			o.Partitions[i].File = e.abs(f)
		}
	}
	if o.Bootcode != "" {
		o.Bootcode = e.abs(o.Bootcode)
	}
	return o, nil
}

// mkimgSchemesSummary names the schemes for the command's summary, from
// the package's scheme table: "APM, BSD, ... or VTOC8".
func mkimgSchemesSummary() string {
	names := mkimg.Schemes()
	for i, n := range names {
		names[i] = strings.ToUpper(n)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// mkimgFormatsHelp says -f for help mkimg, from the package's format
// table: each format with the line mkimg's usage gives it.
func mkimgFormatsHelp() string {
	var b strings.Builder
	b.WriteString("the output format, one of mkimg's, each written as mkimg writes it (raw, the disk itself, by default):")
	const pad = "          "
	for _, f := range mkimg.Formats() {
		for i, line := range wrapText(mkimg.FormatDescription(f), helpWidth-2-flagColumn-2-len(pad)) {
			if i == 0 {
				fmt.Fprintf(&b, "\n  %-6s  %s", f, line)
			} else {
				b.WriteString("\n" + pad + line)
			}
		}
	}
	return b.String()
}

// mkimgSchemesHelp lists the schemes for help mkimg, from the package's
// scheme table: each one's description, limits and type aliases.
func mkimgSchemesHelp() string {
	var b strings.Builder
	b.WriteString("\n\nSchemes (partitions, label length: UTF-16 units for gpt, bytes for the\nothers, boot code bytes, largest sector; types, then fixturegen's own\nLinux types, which FreeBSD mkimg lacks):\n")
	for _, name := range mkimg.Schemes() {
		f, _ := mkimg.Scheme(name)
		fmt.Fprintf(&b, "\n  %-6s %s: %d, %d, %d, %d;\n", f.Name, f.Description, f.MaxPartitions, f.LabelMax, f.Bootcode, f.MaxSectorSize)
		line := "         "
		types := slices.Concat(f.Aliases, f.LinuxAliases)
		for i, a := range types {
			sep := ", "
			if i == len(types)-1 {
				sep = ""
			}
			if len(line)+len(a)+len(sep) > 76 {
				b.WriteString(strings.TrimRight(line, " ") + "\n")
				line = "         "
			}
			line += a + sep
		}
		b.WriteString(line)
	}
	return b.String()
}

// mkimgQuery answers -h, --formats, --schemes and --version. The lists
// are mkimg's: names on one line, in the reverse order mkimg registers
// them; the version line is freebsd-mkimg's.
func mkimgQuery(e *env, q string) error {
	var list []string
	switch q {
	case "help":
		return runHelp(e, []string{"mkimg"})
	case "formats":
		list = mkimg.Formats()
	case "schemes":
		list = mkimg.Schemes()
	case "version":
		_, err := fmt.Fprintf(e.Stdout, "mkimg %d (%d-bit)\n", mkimg.Version, strconv.IntSize)
		return err
	}
	list = slices.Clone(list)
	slices.Reverse(list)
	_, err := fmt.Fprintln(e.Stdout, strings.Join(list, " "))
	return err
}

// fromMkimg turns an error wrapping mkimg.ErrOption into the command's
// usage error, with the same message; other errors are returned as they
// are.
func fromMkimg(err error) error {
	if errors.Is(err, mkimg.ErrOption) {
		return usagef("%s", err.Error())
	}
	return err
}

// fixturegenPrefix writes each Write, one library warning line, after
// "fixturegen: ", as the command's own messages begin.
type fixturegenPrefix struct{ w io.Writer }

func (p fixturegenPrefix) Write(b []byte) (int, error) {
	if _, err := io.WriteString(p.w, "fixturegen: "); err != nil {
		return 0, err
	}
	return p.w.Write(b)
}
