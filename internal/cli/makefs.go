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
		Name:    "makefs",
		Usage:   "makefs [-DxZ] [-B endian] [-b free-blocks] [-d debug-mask] [-F mtree-specfile] [-f free-files] [-M minimum-size] [-m maximum-size] [-N userdb-dir] [-O offset] [-o fs-options] [-R roundup-size] [-S sector-size] [-s image-size] [-T timestamp] [-t fs-type] [--metadata=git|host] image-file directory|manifest [extra-directory ...]",
		Summary: "create a file system image from a directory tree, as makefs(8) does",
		Help:    makefsHelp,
		Run:     runMakefs,
	})
}

const makefsHelp = `Options are those of FreeBSD makefs(8); -o takes the options of the
file system type, comma-separated, as key or key=value.

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

-t chooses the file system type (default ffs). "-o help", anywhere among
the -o options, prints the options of that type and exits; it needs no
image-file or directory.

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
