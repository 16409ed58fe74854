package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/inspect"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

func init() {
	register(command{
		Name:    "ls",
		Usage:   "ls [-l] image [path]",
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
file whose format stores none (FAT, ISO 9660 without Rock Ridge).

With a path (slash-separated, as ls lists it; a leading '/' is allowed),
ls lists only what is below that directory of the image, or that one
file, with the same paths.

A partitioned disk (GPT or MBR, as fixturegen mkimg, FreeBSD's mkimg,
sgdisk or sfdisk write one) lists as one entry per used slot, p1, p2, ...
by slot number, whose column names the scheme, the partition's type, its
label, its start and size in bytes, its stored type and its unique GUID:

  dr-xr-xr-x 0 1970-01-01 00:00:00 gpt efi "ESP" start=17408 size=1474560 type=c12a7328-... guid=... p1/

A partition holding a FAT, FFS or ISO 9660 file system (or a partition
table of its own) is a directory, the root of that file system: its files
follow under pN/ with their format's column, and "fixturegen ls disk.img
p1/EFI/BOOT" lists that directory of partition 1. Any other partition is
a regular file, pN, of its bytes. A GPT whose primary header is broken is
read from its backup header, and diff's first line says so. A partition
holding a table of its own (an MBR slice holding a BSD disklabel) lists
that table's partitions under pN/ by slot (p2/p1, p2/p2, ...).

An image cut short lists as far as its data goes, with a line on
standard error for each thing missing ("warning: mbr partition 2 (bytes
... to ...) ends past the image's end (... bytes)"); reading the missing
bytes is an error. A file system fixturegen does not read (NTFS, exFAT,
ext4, squashfs, ...) is named as such.`,
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
	if fl.NArg() != 1 && fl.NArg() != 2 {
		return usagef("ls: want one image and at most one path")
	}
	name := fl.Arg(0)
	dir := "."
	if fl.NArg() == 2 {
		var ok bool
		if dir, ok = imagePath(fl.Arg(1)); !ok {
			return fmt.Errorf("ls: %s: invalid path", fl.Arg(1))
		}
	}
	f, size, err := openImage(e, "ls", name)
	if err != nil {
		return err
	}
	defer f.Close()
	fsys, kind, err := inspect.Open(f, size)
	if err != nil {
		return openError("ls", name, err)
	}
	items, err := inspect.ListUnder(fsys, kind, dir)
	if err != nil {
		var pe *fs.PathError
		if dir != "." && errors.As(err, &pe) && pe.Path == dir {
			return fmt.Errorf("ls: %s: %s: %v", name, fl.Arg(1), pe.Err)
		}
		return fmt.Errorf("ls: %s: %v", name, err)
	}
	write := inspect.WriteList
	if *long {
		write = inspect.WriteLongList
	}
	if err := write(e.Stdout, items); err != nil {
		return err
	}
	warn(e, "ls", name, fsys)
	return nil
}

// warn writes a line to standard error for each warning of fsys, the
// image name opened for cmd: what its listing leaves out or shows only
// in part (describe.Warner), such as a partition past a cut image's end.
func warn(e *env, cmd, name string, fsys fs.FS) {
	for _, w := range describe.Warnings(fsys) {
		fmt.Fprintf(e.Stderr, "fixturegen: %s: %s: warning: %s\n", cmd, name, w)
	}
}

// imagePath turns a path inside an image as a user writes it (with or
// without a leading '/') into an fs.FS name, and reports whether it is
// valid.
func imagePath(p string) (string, bool) {
	name := strings.TrimPrefix(p, "/")
	if name == "" {
		name = "."
	}
	name = path.Clean(name)
	return name, fs.ValidPath(name)
}
