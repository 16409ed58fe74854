package mkimg

import (
	"errors"

	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// ErrNoTable reports a disk on which a scheme's reader finds no table of
// its own; a caller tries the next scheme.
var ErrNoTable = errors.New("mkimg: no partition table")

// Table is a partition table as read from a disk: the scheme, its sector
// size, the fields of its header, and the partitions it lists.
type Table struct {
	// Scheme is the scheme's -s name, such as gpt or mbr.
	Scheme string
	// SectorSize is the logical sector size the table was found with.
	SectorSize int
	// Fields are the header's fields, named as the scheme's specification
	// names them (UEFI's HeaderCRC32, PartitionEntryLBA, ...), for
	// describe and diff; their Path names the structure that holds them
	// ("GPT header", "backup GPT header", "MBR") and their Offset is a
	// byte offset on the disk.
	Fields []describe.Field
	// Partitions are the used slots in slot order.
	Partitions []Entry
	// Problems are what the reader found wrong but could read past, one
	// sentence each naming the structure and byte: a primary GPT header
	// that fails its HeaderCRC32, so that the backup was read.
	Problems []string
}

// Entry is one used slot of a Table.
type Entry struct {
	// Index is the 1-based slot, as mkimg numbers -p arguments.
	Index int
	// Type is mkimg's type alias for the stored type when it has one,
	// else RawType.
	Type string
	// RawType is the type as the scheme stores it: a GUID for gpt, a
	// number such as 0xa5 for mbr, a name such as Apple_UFS for apm.
	RawType string
	// Label is the partition's label; "" where the scheme has none.
	Label string
	// Start and Size are the partition's byte offset and length on the
	// disk.
	Start, Size int64
	// GUID is the partition's unique GUID where the scheme has one.
	GUID string
	// Fields are the entry's fields, named as the scheme's
	// specification names them, under a Path naming the entry ("GPT
	// partition entry 2", "MBR partition record 1").
	Fields []describe.Field
}
