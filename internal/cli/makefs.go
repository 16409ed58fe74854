package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/makefs"
)

// The makefs command accepts the command line of FreeBSD makefs(8):
//
//	makefs [-DxZ] [-B endian] [-b free-blocks] [-d debug-mask] [-F mtree-specfile]
//	       [-f free-files] [-M minimum-size] [-m maximum-size] [-N userdb-dir]
//	       [-O offset] [-o fs-options] [-R roundup-size] [-S sector-size]
//	       [-s image-size] [-T timestamp] [-t fs-type] [--metadata=git|host]
//	       image-file directory|manifest [extra-directory ...]
//
// The library package imgkit/makefs parses and runs it, with the file
// system types it registers (cd9660, ffs, msdos); this file gives it the
// command's environment and says its usage errors as the command's.

func init() {
	register(command{
		Name:     "makefs",
		Usage:    "makefs [-DxZ] [-B endian] [-b free-blocks] [-d debug-mask] [-F mtree-specfile] [-f free-files] [-M minimum-size] [-m maximum-size] [-N userdb-dir] [-O offset] [-o fs-options] [-R roundup-size] [-S sector-size] [-s image-size] [-T timestamp] [-t fs-type] [--metadata=git|host] image-file directory|manifest [extra-directory ...]",
		Summary:  "create a file system image from a directory tree, as makefs(8) does",
		Flags:    makefsFlags,
		Help:     makefsHelp,
		Examples: makefsExamples,
		Run:      runMakefs,
	})
}

// makefsFlags lists the flags makefs.Parse reads, makefs.OptString's and
// makefs.LongOptions, each said by makefsFlagTexts.
func makefsFlags() []flagGroup {
	return []flagGroup{{
		Title: "Flags, those of FreeBSD makefs(8) and fixturegen's --metadata:",
		Flags: getoptFlags(makefs.OptString, makefs.LongOptions, makefsFlagTexts),
	}}
}

// makefsFlagTexts says each flag of makefs's command line, by its letter
// or long name.
var makefsFlagTexts = map[string]flagText{
	"B":        {"endian", "byte order of an ffs image: be, 4321 or big; le, 1234 or little (the default)"},
	"b":        {"free-blocks", "free blocks an ffs image keeps, or with '%' a percentage of its size"},
	"D":        {"", "a path given twice in an mtree manifest or spec is a warning, not an error; -DD ignores it"},
	"d":        {"debug-mask", "makefs's debugging output: accepted and ignored"},
	"F":        {"mtree-specfile", "apply the mtree spec to the tree: owners, modes, times, flags, and entries it adds"},
	"f":        {"free-files", "free inodes an ffs image keeps, or with '%' a percentage"},
	"M":        {"minimum-size", "the smallest size of the image"},
	"m":        {"maximum-size", "the largest size of the image; a tree that needs more is an error"},
	"N":        {"userdb-dir", "look owner and group names up in userdb-dir's master.passwd (or passwd) and group rather than the host's"},
	"O":        {"offset", "start the file system this many bytes into the image file (ffs, msdos)"},
	"o":        {"fs-options", "options of the -t type, comma-separated key or key=value; listed below, and by -o help"},
	"p":        {"", "the older spelling of -Z"},
	"R":        {"roundup-size", "round the size of an ffs image up to a multiple of roundup-size"},
	"S":        {"sector-size", "the sector size of the file system (ffs, msdos)"},
	"s":        {"image-size", "the size of the image: sets both -M and -m"},
	"T":        {"timestamp", "every time in the image: a file's modification time, or seconds since the Epoch"},
	"t":        {"fs-type", "the file system type, one of those below (default ffs)"},
	"x":        {"", "with -F, leave out what the spec does not name"},
	"Z":        {"", "a sparse image (ffs): accepted; images are always sparse"},
	"metadata": {"=git|host", "git: give the source directories' files only what git keeps (see below); host, the default: the host's owners, modes and hard links"},
}

// makefsExamples are the examples of "fixturegen help makefs", each run
// by TestHelpExamplesRun in a folder holding src.
var makefsExamples = []example{
	{"makefs -t msdos -s 1440k -T 0 floppy.img src", "a 1440 KiB FAT12 image of the folder src, every time set to the Epoch"},
	{"makefs -t ffs -o version=2 -M 1m -T 0 --metadata=git ufs.img src", "a UFS2 file system of at least 1 MiB whose owners and modes are what git keeps, the same in every checkout"},
	{"makefs -t cd9660 -o rockridge,label=FIXTURES -T 0 cd.iso src", "an ISO 9660 image with Rock Ridge names and modes, volume label FIXTURES"},
}

const makefsHelp = `The source is a directory, or a file read as an mtree spec (a manifest of
the tree, as mtree -c writes one), or "-" for such a spec on standard
input; extra directories are merged into it.

Sizes (-s -m -M -O -R -S -b -f) are decimal numbers of bytes with an
optional suffix: b (512), k (1024), m (1024^2), g (1024^3), t (1024^4)
or w (4, the size of an int); "AxB" is the product of A and B. A '%'
at the end of -b or -f asks for a percentage of the image size.

-T takes a file, whose modification time is used, or else a number of
seconds since the Epoch; without -T, SOURCE_DATE_EPOCH clamps times.

--metadata=git, fixturegen's extension of the command line (accepted
anywhere among the flags), gives the files of the source directories only
what git keeps: owner and group 0, files 0644 or, with any execute bit,
0755, directories 0755, symbolic links 0777, no file flags and no hard
links, so that the image is the same in every checkout whatever its owner
and umask. It applies before -F, whose keywords still win; an mtree
manifest given as the source is taken as it says. --metadata=host, the
default, keeps the host's owners, modes and hard links. Catalogue entries
(fixturegen build) run with --metadata=git unless they give
--metadata=host.

"-o help", anywhere among the -o options, prints the options of the -t
type and exits; it needs no image-file or directory.

On a terminal, an image that takes more than a second shows on standard
error how far it is until it is done ("makefs: big.img: writing 1.2 GiB
/ 2.0 GiB (60%)").
`

func runMakefs(e *env, args []string) error {
	c, err := parseMakefsArgs(e, args)
	if err != nil {
		return err
	}
	if d := c.ImageInSource(); d != "" && !c.Help {
		fmt.Fprintf(e.Stderr, "fixturegen: makefs: warning: the image %s lies inside its source folder %s: an image left there by an earlier run is packed into the new one\n", e.show(c.Image), e.show(d))
	}
	if c.Help {
		return fromLibrary(c.Run(e.Stdout, e.Stderr))
	}
	defer e.removeTempsOnSignal("makefs")()
	e.removeLeftovers("makefs", c.Image)
	c.Progress = e.progressMeter()
	return fromLibrary(e.showProgress("makefs", args[c.ImageArg], c.Progress, c.Run))
}

// show returns the path p as the user would write it: relative to the
// working directory when it lies under it, else as it is.
func (e *env) show(p string) string {
	if e.Dir != "" {
		if r, err := filepath.Rel(e.Dir, p); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return r
		}
	}
	return p
}

// parseMakefsArgs parses the makefs command line with makefs.Parse in the
// command's environment; errors in options are usage errors that name the
// option.
func parseMakefsArgs(e *env, args []string) (*makefs.Command, error) {
	c, err := makefs.Parse(args, e.Dir, e.getenv)
	if err != nil {
		return nil, fromLibrary(err)
	}
	c.Stdin = e.Stdin
	return c, nil
}

// fromLibrary turns a *makefs.UsageError in err into the command's usage
// error, with the same message; other errors are returned as they are.
func fromLibrary(err error) error {
	if ue := (*makefs.UsageError)(nil); errors.As(err, &ue) {
		return usagef("%s", err.Error())
	}
	return err
}

// makefsTypesHelp lists the file system types, each with its -o options,
// for "fixturegen help makefs".
func makefsTypesHelp() string { return makefs.TypesHelp() }
