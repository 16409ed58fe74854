package cli

import (
	"errors"

	"github.com/fixturegen/fixturegen/imgkit/makefs"
)

// The makefs command accepts the command line of FreeBSD makefs(8):
//
//	makefs [-DxZ] [-B endian] [-b free-blocks] [-d debug-mask] [-F mtree-specfile]
//	       [-f free-files] [-M minimum-size] [-m maximum-size] [-N userdb-dir]
//	       [-O offset] [-o fs-options] [-R roundup-size] [-S sector-size]
//	       [-s image-size] [-T timestamp] [-t fs-type]
//	       image-file directory|manifest [extra-directory ...]
//
// The library package imgkit/makefs parses and runs it, with the file
// system types it registers (ffs, msdos); this file gives it the command's
// environment and says its usage errors as the command's.

func init() {
	register(command{
		Name:    "makefs",
		Usage:   "makefs [-DxZ] [-B endian] [-b free-blocks] [-d debug-mask] [-F mtree-specfile] [-f free-files] [-M minimum-size] [-m maximum-size] [-N userdb-dir] [-O offset] [-o fs-options] [-R roundup-size] [-S sector-size] [-s image-size] [-T timestamp] [-t fs-type] image-file directory|manifest [extra-directory ...]",
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

-t chooses the file system type (default ffs). "-o help", anywhere among
the -o options, prints the options of that type and exits; it needs no
image-file or directory.

On a terminal, an image that takes more than a second shows how many
bytes have been written on standard error until it is done.
`

func runMakefs(e *env, args []string) error {
	c, err := parseMakefsArgs(e, args)
	if err != nil {
		return err
	}
	if c.Help {
		return fromLibrary(c.Run(e.Stdout, e.Stderr))
	}
	c.Progress = e.progressCounter()
	return fromLibrary(e.showProgress("makefs", imageArg(e, args, c.Image), c.Progress, c.Run))
}

// imageArg returns the argument of args that names the image file image,
// as the user wrote it, for messages; image itself when none does.
func imageArg(e *env, args []string, image string) string {
	for _, a := range args {
		if a != "" && a[0] != '-' && e.abs(a) == image {
			return a
		}
	}
	return image
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
