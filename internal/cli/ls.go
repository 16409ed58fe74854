package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/fixturegen/fixturegen/imgkit/inspect"
)

func init() {
	register(command{
		Name:    "ls",
		Usage:   "ls [-l] image",
		Summary: "list the files of an image or archive",
		Help: `ls prints one line per file and directory of a FAT, FFS or ISO 9660
image or an ar archive (the format is recognised from the file's first
bytes), depth-first in name order: mode, size, modification time (UTC),
the FAT short name, the ar member's header offset, the FFS inode number or
the ISO 9660 file identifier and extent block (README.TXT;1@23), and the
path (directories end in '/').

The mode is shown as ls -l and tar tv show it: a type letter ('-', 'd',
'l' for a symbolic link, 'c', 'b', 'p', 's') and nine permission letters,
setuid, setgid and sticky as s/S and t/T.

-l adds the numeric owner and group after the mode, and " -> target"
after a symbolic link's path, as ls -l does: the uid and gid an FFS inode,
an ISO 9660 Rock Ridge entry or an ar member header stores, or "-" for a
file whose format stores none (FAT, ISO 9660 without Rock Ridge).`,
		Run: runLs,
	})
}

func runLs(e *env, args []string) error {
	fl := flag.NewFlagSet("ls", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	long := fl.Bool("l", false, "")
	if err := fl.Parse(args); err != nil {
		return usagef("ls: %v", err)
	}
	if fl.NArg() != 1 {
		return usagef("ls: want one image")
	}
	name := fl.Arg(0)
	f, size, err := openImage(e, "ls", name)
	if err != nil {
		return err
	}
	defer f.Close()
	list := inspect.ListFile
	if *long {
		list = inspect.ListFileLong
	}
	if err := list(e.Stdout, f, size); err != nil {
		if errors.Is(err, inspect.ErrUnknownFormat) {
			return fmt.Errorf("ls: %s: not an image or archive of a known format (%s)", name, knownFormats())
		}
		return fmt.Errorf("ls: %s: %v", name, err)
	}
	return nil
}
