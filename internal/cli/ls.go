package cli

import (
	"errors"
	"fmt"

	"github.com/fixturegen/fixturegen/imgkit/inspect"
)

func init() {
	register(command{
		Name:    "ls",
		Usage:   "ls image",
		Summary: "list the files of an image or archive",
		Help: `ls prints one line per file and directory of a FAT, FFS or ISO 9660
image or an ar archive (the format is recognised from the file's first
bytes), depth-first in name order: mode, size, modification time (UTC),
the FAT short name, the ar member's header offset, the FFS inode number or
the ISO 9660 file identifier and extent block (README.TXT;1@23), and the
path (directories end in '/').`,
		Run: runLs,
	})
}

func runLs(e *env, args []string) error {
	if len(args) != 1 {
		return usagef("ls: want one image")
	}
	f, size, err := openImage(e, "ls", args[0])
	if err != nil {
		return err
	}
	defer f.Close()
	if err := inspect.ListFile(e.Stdout, f, size); err != nil {
		if errors.Is(err, inspect.ErrUnknownFormat) {
			return fmt.Errorf("ls: %s: not an image or archive of a known format (%s)", args[0], knownFormats())
		}
		return fmt.Errorf("ls: %s: %v", args[0], err)
	}
	return nil
}
