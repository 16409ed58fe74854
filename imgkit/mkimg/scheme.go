package mkimg

import (
	"io"
	"sort"
	"strings"
)

// scheme is one partitioning scheme as mkimg(1) knows it: what its table
// holds, where it keeps its metadata, and how it writes that metadata.
// Each scheme lives in a file of its own (gpt.go, mbr.go, ...) and adds
// itself to schemes.
type scheme struct {
	// name is the -s value, in lower case; description is the line
	// mkimg's usage gives it.
	name, description string
	// maxParts is how many partition slots the table holds, used or not.
	maxParts int
	// labelMax is the longest label a partition may have, in bytes, or
	// in UTF-16 code units where labelUTF16; 0 means the scheme has no
	// labels.
	labelMax int
	// labelUTF16 says the scheme stores a label as UTF-16LE code units
	// (gpt's PartitionName), from the label's UTF-8; the others store its
	// bytes.
	labelUTF16 bool
	// bootcode is the size the boot code file (-b) is zero-padded to and
	// the most it may hold; 0 means the scheme takes no boot code.
	bootcode int
	// maxSectorSize is the largest logical sector size (-S) it takes.
	maxSectorSize uint64
	// hasGUIDs says the table stores GUIDs, the disk's and the
	// partitions' (Options.DiskGUID, Partition.GUID).
	hasGUIDs bool
	// hasType reports whether the scheme maps a type alias (lower case)
	// to a type of its own.
	hasType func(alias string) bool
	// metadata answers where, for one of the meta* cases, sector blk
	// goes once the scheme's metadata and alignment are allowed for.
	metadata func(l *layout, where int, blk uint64) uint64
	// reserved lists the runs of sectors the scheme's metadata holds on
	// the disk l lays out, which no partition may share
	// (checkReserved), or refuses a partition that leaves its metadata
	// no room; nil for a scheme whose partitions may hold its metadata
	// where their data is zeros (bsd, vtoc8: checkMetadataClash).
	reserved func(l *layout) ([]metaRun, error)
	// write writes the scheme's metadata once the partitions' contents
	// are on the disk; g holds the GUIDs the scheme may use.
	write func(l *layout, w io.WriterAt, g guids) error
	// read finds the scheme's table on a disk of size bytes and returns
	// it, or ErrNoTable (wrapped) when the disk does not hold one; it
	// bounds every count and offset it reads before trusting them
	// (reader.go).
	read func(r io.ReaderAt, size int64) (*Table, error)
}

// schemes lists the schemes this package writes, by name.
var schemes = map[string]*scheme{}

// registerScheme adds s to schemes; each scheme's file calls it from init.
func registerScheme(s *scheme) {
	schemes[s.name] = s
}

// Schemes returns the names of the partitioning schemes the package
// writes, sorted, as mkimg --schemes lists its own.
func Schemes() []string {
	names := make([]string, 0, len(schemes))
	for n := range schemes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// typeAliases are every partition type alias mkimg knows (scheme.c's
// table), whatever the scheme; each scheme maps some of them.
var typeAliases = []string{
	"ebr", "efi", "fat16b", "fat32", "fat32lba", "freebsd", "freebsd-boot",
	"freebsd-nandfs", "freebsd-swap", "freebsd-ufs", "freebsd-vinum",
	"freebsd-zfs", "mbr", "ms-basic-data", "ntfs", "prepboot",
}

// linuxAliases are fixturegen's own partition type aliases, which
// FreeBSD's mkimg does not know: Linux data, swap, LVM and RAID, and the
// Discoverable Partitions Specification's root and /usr partitions for
// x86-64 and arm64 and its Extended Boot Loader Partition. gpt maps them
// all to their GUIDs; mbr and ebr map those an MBR has a type byte for
// (0x83, 0x82, 0x8e, 0xfd and 0xea); the other schemes none.
var linuxAliases = []string{
	"linux-data", "linux-swap", "linux-lvm", "linux-raid",
	"linux-root-x86-64", "linux-root-arm64", "linux-usr-x86-64", "linux-usr-arm64",
	"xbootldr",
}

// SchemeFacts is what a scheme holds and takes, for a caller's help or
// checks: mkimg's scheme table entry.
type SchemeFacts struct {
	// Name is the -s value; Description the line mkimg's usage gives it.
	Name, Description string
	// MaxPartitions is how many -p slots the scheme holds, used or not.
	MaxPartitions int
	// LabelMax is the longest label a partition may have: in UTF-16 code
	// units for gpt, whose labels are UTF-16, in bytes for the others; 0
	// means the scheme has no labels.
	LabelMax int
	// Bootcode is the most bytes of boot code (-b) it takes; 0 for none.
	Bootcode int
	// MaxSectorSize is the largest logical sector size (-S) it takes.
	MaxSectorSize int
	// Aliases are the type aliases it maps, in mkimg's order.
	Aliases []string
	// LinuxAliases are fixturegen's own Linux type aliases it maps, which
	// FreeBSD's mkimg lacks (linux-data, linux-swap, ...).
	LinuxAliases []string
}

// Scheme returns the facts of the scheme name (in any case), and false
// for a scheme the package lacks.
func Scheme(name string) (SchemeFacts, bool) {
	s, ok := schemes[strings.ToLower(name)]
	if !ok {
		return SchemeFacts{}, false
	}
	return SchemeFacts{Name: s.name, Description: s.description, MaxPartitions: s.maxParts,
		LabelMax: s.labelMax, Bootcode: s.bootcode, MaxSectorSize: int(s.maxSectorSize),
		Aliases: s.mapped(typeAliases), LinuxAliases: s.mapped(linuxAliases)}, true
}

// aliases returns the type aliases s maps: mkimg's in its order, then
// fixturegen's Linux ones.
func (s *scheme) aliases() []string {
	return append(s.mapped(typeAliases), s.mapped(linuxAliases)...)
}

// mapped returns the aliases of list that s maps, in list's order.
func (s *scheme) mapped(list []string) []string {
	var out []string
	for _, a := range list {
		if s.hasType(a) {
			out = append(out, a)
		}
	}
	return out
}

// schemesWith returns the names of the schemes that map alias, sorted.
func schemesWith(alias string) []string {
	var names []string
	for _, n := range Schemes() {
		if schemes[n].hasType(alias) {
			names = append(names, n)
		}
	}
	return names
}

// Where the scheme's alignment rule is asked for, as mkimg's scheme
// metadata callback distinguishes them.
const (
	metaStart      = iota // first sector after the leading metadata
	metaEnd               // disk size after the trailing metadata
	metaPartBefore        // where a partition may start
	metaPartAfter         // where the next one may start after it
	// metaPartAbsolute is where a partition given an absolute offset
	// starts: blk is that offset in sectors, rounded up, and the scheme
	// aligns it as it aligns any partition, without the room it keeps
	// before one (ebr's +1 for its EBR sector at metaPartBefore is not
	// added), as mkimg's SCHEME_META_PART_ABSOLUTE case does.
	metaPartAbsolute
)
