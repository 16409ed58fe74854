package cli

import (
	"errors"
	"fmt"
	"testing/fstest"

	"github.com/fixturegen/fixturegen/catalog"
	"github.com/fixturegen/fixturegen/imgkit/ext"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// The mke2fs command (and mkfs.ext2, mkfs.ext3, mkfs.ext4, which set -t)
// takes mke2fs(8)'s command line and writes the bytes e2fsprogs 1.47.4's
// mke2fs -d writes with its default mke2fs.conf; imgkit/ext's ParseMke2fs
// reads the line.

var mke2fsNames = []string{"mke2fs", "mkfs.ext2", "mkfs.ext3", "mkfs.ext4"}

func init() {
	for _, name := range mke2fsNames {
		register(command{
			Name:    name,
			Usage:   name + " [-t ext2|ext3] [-b block-size] [-d root-directory] [-E hash_seed=UUID,root_owner=0:0] [-F] [-I inode-size] [-i bytes-per-inode] [-j] [-L label] [-m percent] [-O feature,...] [-q] [-T usage-type] [-U UUID] [--timestamp=T] device [size]",
			Summary: "create ext2, ext3 and ext4 images as e2fsprogs' mke2fs -d does",
			Help:    mke2fsHelp,
			Examples: []example{
				{"mke2fs -t ext2 -b 1024 --timestamp=0 -d root root.ext2 8m", "an ext2 image of the folder root, the same bytes on every run"},
				{"SOURCE_DATE_EPOCH=0 mkfs.ext3 -U 6b33f6a2-4bd5-4fb1-9ba5-2c4f3a0d1e77 -E hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 -d root root.ext3 32M", "mke2fs 1.47.4's bytes for that command line"},
			},
			Run: func(e *env, args []string) error { return runMke2fs(e, name, args) },
		})
	}
}

const mke2fsHelp = `The image is the bytes of e2fsprogs 1.47.4's mke2fs with its default
mke2fs.conf for the same command line, tree and SOURCE_DATE_EPOCH, when -U
and -E hash_seed= are given. Without them the UUID and hash seed are
derived from the options and the tree (imgkit/ext DETAILS.md), never
random; without SOURCE_DATE_EPOCH or --timestamp the files keep their
times and the file system's own times are the tree's newest modification
time, not the clock. ext4's s_kbytes_written (a statistic of mke2fs's
I/O cache) comes from a model of mke2fs's block I/O. The options the writer
does not reproduce are refused, naming the option. The image is written beside the device
and renamed into place when complete; the size is required unless the
device is a file already (the file system then fills it, as mke2fs
sizes it). A device that is a file
of one byte or more is written into, as mke2fs does: the bytes outside the
file system (a disk's partition table before -E offset=) are kept, and
its inode tables are flagged zeroed unless -E nodiscard. -F and -q are
accepted; nothing is printed.

fixturegen's own options: --timestamp=T sets every time to T (seconds
since the epoch, or a file's time), as makefs -T; --metadata=git|host
reads -d's tree with git's owners and modes, or the host's (the default).`

func runMke2fs(e *env, prog string, args []string) error {
	m, err := parseMke2fs(e, prog, args)
	if err != nil {
		return err
	}
	for _, w := range m.Warnings {
		fmt.Fprintf(e.Stderr, "fixturegen: mke2fs: warning: %s\n", w)
	}
	var src fstree.Source = emptyTree()
	if m.Dir != "" {
		t, err := fstree.WalkDir(e.abs(m.Dir), &fstree.Options{Metadata: m.Metadata, Xattrs: !m.Options.NoCopyXattrs})
		if err != nil {
			return fmt.Errorf("mke2fs: %w", err)
		}
		src = t
	}
	defer e.removeTempsOnSignal("mke2fs")()
	e.removeLeftovers("mke2fs", m.Device)
	write := ext.WriteFile
	if m.Existing {
		write = ext.UpdateFile // into the file, as mke2fs writes a device
	}
	if err := write(e.abs(m.Device), src, &m.Options); err != nil {
		return fmt.Errorf("mke2fs: %s: %w", m.Device, err)
	}
	return nil
}

// emptyTree is -d's absence: a root directory only.
func emptyTree() fstree.Source {
	return fstree.FS(fstest.MapFS{})
}

func parseMke2fs(e *env, prog string, args []string) (*ext.Mke2fs, error) {
	m, err := ext.ParseMke2fs(prog, args, e.Dir, e.getenv)
	if ue := (*ext.Mke2fsUsageError)(nil); errors.As(err, &ue) {
		return nil, usagef("%s", ue.Msg)
	}
	return m, err
}

// planMke2fs plans a mke2fs line of a catalogue: the device is the
// output, -d's tree the input. The times must come from --timestamp, as
// makefs's from -T: git sets every file's time when it checks it out,
// and SOURCE_DATE_EPOCH only clamps them.
func planMke2fs(prog string) func(e *env, args []string) (*catalog.Plan, error) {
	return func(e *env, args []string) (*catalog.Plan, error) {
		m, err := parseMke2fs(e, prog, args)
		if err != nil {
			return nil, err
		}
		p := &catalog.Plan{Output: m.DeviceArg, Times: m.TimestampArg == ""}
		if m.Dir != "" {
			p.Inputs = append(p.Inputs, catalog.Input{Path: m.Dir, Follow: true})
		}
		if m.TimestampArg != "" {
			p.Inputs = append(p.Inputs, catalog.Input{Path: e.abs(m.TimestampArg), Optional: true, Follow: true, ModTime: true})
		}
		if m.Metadata == fstree.MetadataGit && p.Times {
			return nil, errMke2fsCheckoutTimes
		}
		return p, nil
	}
}

var errMke2fsCheckoutTimes = errors.New("mke2fs without --timestamp takes its times from the checkout, which git sets at checkout; give --timestamp (for instance --timestamp=0) or --metadata=host")
