package cli

import (
	"errors"

	"github.com/fixturegen/fixturegen/imgkit/mkimg"
)

// The mkimg command accepts FreeBSD mkimg(1)'s command line. The library
// package imgkit/mkimg parses it and writes the disk; this file resolves
// its paths against the working directory and says its option errors as
// usage errors.

func init() {
	register(command{
		Name:    "mkimg",
		Usage:   "mkimg -s gpt|mbr -p TYPE[/LABEL]:=FILE|TYPE[/LABEL]::SIZE|- ... [-y] [-S secsz] [-P blksz] [-H heads] [-T track] [-a n] [-b bootcode] [-f raw] [-o disk]",
		Summary: "make a partitioned disk image (GPT or MBR, raw), as FreeBSD's mkimg(1) does",
		Help: `A first slice of mkimg(1): the gpt and mbr schemes in the raw format, with
partitions from files (TYPE[/LABEL]:=FILE), empty ones of a size
(TYPE[/LABEL]::SIZE, as 64k or 1m) and unused slots (-). -y gives FreeBSD's
test-mode GUIDs and so freebsd-mkimg -y's bytes; without it the GUIDs are
derived from the layout and the partitions' contents, so the same inputs
give the same disk. Without -o the disk goes to standard output. Offsets,
:-CMD partitions, capacities and the other schemes and formats are not
supported yet.`,
		Run: runMkimg,
	})
}

func runMkimg(e *env, args []string) error {
	o, err := parseMkimgArgs(e, args)
	if err != nil {
		return err
	}
	defer e.removeTempsOnSignal("mkimg")()
	if o.Output == "" {
		disk, err := mkimg.Build(o)
		if err != nil {
			return fromMkimg(err)
		}
		_, err = e.Stdout.Write(disk)
		return err
	}
	return fromMkimg(mkimg.WriteFile(e.abs(o.Output), o))
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

// fromMkimg turns an error wrapping mkimg.ErrOption into the command's
// usage error, with the same message; other errors are returned as they
// are.
func fromMkimg(err error) error {
	if errors.Is(err, mkimg.ErrOption) {
		return usagef("%s", err.Error())
	}
	return err
}
