package cli

import (
	"fmt"

	"github.com/fixturegen/fixturegen/imgkit/inspect"
)

func init() {
	register(command{
		Name:    "diff",
		Usage:   "diff [-q] file1 file2",
		Summary: "explain how two images or archives differ, field by field",
		Help: `diff compares two FAT images, two FFS images, two ISO 9660 images, two
ar archives or two partitioned disks by structure and prints what differs in words, one line each:
which structure or file (the boot sector, the superblock, a cylinder
group, a volume descriptor, a path, an archive member), which field by its
specification name (BPB_SecPerClus, DIR_WrtTime, fs_minfree, cg_time,
di_mtime, Volume Space Size, "ar member header date"), at
which byte offset, and the old and new values. A file's contents are shown
as size and SHA-256, with the first byte at which they differ; structures
and files present on one side only, and those that moved, are named.
Bytes that differ outside every reported field, files in no known format
and files of two different formats are shown as byte ranges. At most 200
differences are listed, and the rest counted.

Two partitioned disks are compared by their tables, in the scheme's own
field names under the structure that holds them ("GPT header", "backup
GPT header", "GPT partition entry 2", "protective MBR", "MBR partition
record 1": UEFI's HeaderCRC32, DiskGUID, PartitionEntryLBA,
UniquePartitionGUID, PartitionName, the MBR's BootIndicator, OSType,
StartingLBA, SizeInLBA), then inside each partition: its file system's
structures as "p1: boot sector", its files as /p1/EFI/BOOT/BOOTX64.EFI,
and a partition of no known format as its bytes, /p3.

Nothing is printed when the files are identical. -q leaves out the report;
the one line "fixturegen: diff: file1 and file2 differ" on standard error
and the exit status stay.

The exit status is that of cmp(1): 0 when the files are identical, 1 when
they differ, 2 when one cannot be read or the command line is wrong.`,
		Run: runDiff,
	})
}

// diffTrouble is an error of diff that is neither a usage error nor a
// difference: a file that cannot be read. Its ExitCode is 2, as cmp(1)'s.
type diffTrouble struct{ err error }

func (d *diffTrouble) Error() string { return d.err.Error() }
func (d *diffTrouble) Unwrap() error { return d.err }
func (d *diffTrouble) ExitCode() int { return 2 }

func runDiff(e *env, args []string) error {
	opts, rest, err := getopt("diff", args, "q")
	if err != nil {
		return err
	}
	quiet := len(opts) > 0
	if len(rest) != 2 {
		return usagef("diff: want two files")
	}
	a, sizeA, err := openImage(e, "diff", rest[0])
	if err != nil {
		return &diffTrouble{err}
	}
	defer a.Close()
	b, sizeB, err := openImage(e, "diff", rest[1])
	if err != nil {
		return &diffTrouble{err}
	}
	defer b.Close()
	rep, err := inspect.Diff(a, sizeA, b, sizeB)
	if err != nil {
		return &diffTrouble{fmt.Errorf("diff: %v", err)}
	}
	if rep.Same {
		return nil
	}
	if !quiet {
		if err := rep.Write(e.Stdout, rest[0], rest[1]); err != nil {
			return &diffTrouble{fmt.Errorf("diff: %v", err)}
		}
	}
	return fmt.Errorf("diff: %s and %s differ", rest[0], rest[1])
}
