package cli

import (
	"fmt"

	"github.com/fixturegen/fixturegen/imgkit/inspect"
)

func init() {
	register(command{
		Name:    "cat",
		Usage:   "cat image path ...",
		Summary: "print files from an image or archive",
		Help: `cat copies each named file of a FAT, FFS or ISO 9660 image or an ar archive
to standard output, in order. Paths are slash-separated, relative to the root (a
leading '/' is allowed), as "fixturegen ls" lists them. On a partitioned disk
p2/etc/motd is the file etc/motd of the file system in partition 2, and p3
is the bytes of partition 3 when it holds no file system of a known format
(see "fixturegen help ls").`,
		Run: runCat,
	})
}

func runCat(e *env, args []string) error {
	if len(args) < 2 {
		return usagef("cat: want an image and at least one path")
	}
	f, size, err := openImage(e, "cat", args[0])
	if err != nil {
		return err
	}
	defer f.Close()
	fsys, _, err := inspect.Open(f, size)
	if err != nil {
		return openError("cat", args[0], err)
	}
	for _, p := range args[1:] {
		name, ok := imagePath(p)
		if !ok {
			return fmt.Errorf("cat: %s: invalid path", p)
		}
		if err := inspect.Cat(e.Stdout, fsys, name); err != nil {
			return fmt.Errorf("cat: %s: %s: %v", args[0], p, err)
		}
	}
	return nil
}
