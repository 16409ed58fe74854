package mkimg

import (
	"errors"

	"github.com/fixturegen/fixturegen/imgkit/vdisk"
)

// The package's sentinel errors. Every error the package returns wraps
// one of them, so that a caller can tell a bad command line from an input
// the disk cannot hold.
var (
	// ErrOption reports a command line or Options value mkimg(1) refuses.
	ErrOption = vdisk.ErrOption
	// ErrPartition reports a partition specification the scheme cannot
	// hold: an unknown type, a label too long, too many partitions.
	ErrPartition = errors.New("mkimg: bad partition")
	// ErrBootcode reports boot code larger than the scheme has room for.
	ErrBootcode = errors.New("mkimg: bad boot code")
	// ErrTooLarge reports a disk whose sectors do not fit the scheme's
	// on-disk fields.
	ErrTooLarge = vdisk.ErrTooLarge
)

// Sizes and offsets fixed by the MBR and UEFI specifications.
const (
	// mbrPartitionOffset is where the four MBR partition records start;
	// boot code may use every byte before it.
	mbrPartitionOffset = 446
	// mbrSignatureOffset is where the 0xAA55 boot signature sits.
	mbrSignatureOffset = 510
	// mbrSignature is the boot signature value, stored little-endian.
	mbrSignature = 0xaa55
	// mbrPartitions is how many partition records an MBR holds.
	mbrPartitions = 4
	// bootcodeMax is the largest boot code file either scheme accepts:
	// one 512-byte sector, of which only the bytes before the partition
	// records are kept.
	bootcodeMax = 512

	// gptHeaderSize is the UEFI GPT header's HeaderSize: the bytes the
	// HeaderCRC32 covers (UEFI 2.10 table 5.5).
	gptHeaderSize = 92
	// gptEntrySize is SizeOfPartitionEntry: 128 bytes per entry.
	gptEntrySize = 128
	// gptMinEntryArray is the least space UEFI 2.10 section 5.3 reserves
	// for the partition entry array, 16 KiB, whatever the entry count.
	gptMinEntryArray = 16384
	// gptRevision is Revision 1.0 as the header stores it.
	gptRevision = 0x00010000
	// gptMaxPartitions is the most partitions FreeBSD's mkimg puts in a GPT.
	gptMaxPartitions = 4096
	// gptLabelMax is the most UTF-16 code units a GPT PartitionName
	// holds (72 bytes).
	gptLabelMax = 36
	// pmbrOSType is the protective MBR's OSType, GPT Protective.
	pmbrOSType = 0xee
	// maxSectorSize is the largest logical sector size both schemes take.
	maxSectorSize = 4096
)

// gptSignature is the GPT header's Signature, "EFI PART".
var gptSignature = [8]byte{'E', 'F', 'I', ' ', 'P', 'A', 'R', 'T'}

// gptHeader is the UEFI GPT header (UEFI 2.10 section 5.3.2, table 5.5),
// the HeaderSize bytes its HeaderCRC32 covers; the rest of its sector is
// zero. Its Reserved field (bytes 20 to 24) stays zero, so it has no
// accessor.
type gptHeader [gptHeaderSize]byte

func (h *gptHeader) signature() []byte                { return h[0:8] }
func (h *gptHeader) revision() []byte                 { return h[8:12] }
func (h *gptHeader) headerSize() []byte               { return h[12:16] }
func (h *gptHeader) headerCRC32() []byte              { return h[16:20] }
func (h *gptHeader) myLBA() []byte                    { return h[24:32] }
func (h *gptHeader) alternateLBA() []byte             { return h[32:40] }
func (h *gptHeader) firstUsableLBA() []byte           { return h[40:48] }
func (h *gptHeader) lastUsableLBA() []byte            { return h[48:56] }
func (h *gptHeader) diskGUID() []byte                 { return h[56:72] }
func (h *gptHeader) partitionEntryLBA() []byte        { return h[72:80] }
func (h *gptHeader) numberOfPartitionEntries() []byte { return h[80:84] }
func (h *gptHeader) sizeOfPartitionEntry() []byte     { return h[84:88] }
func (h *gptHeader) partitionEntryArrayCRC32() []byte { return h[88:92] }

// gptEntry is one GPT partition entry (UEFI 2.10 section 5.3.3, table 5.6).
// Its Attributes (bytes 48 to 56) stay zero, as mkimg sets none.
type gptEntry [gptEntrySize]byte

func (e *gptEntry) partitionTypeGUID() []byte   { return e[0:16] }
func (e *gptEntry) uniquePartitionGUID() []byte { return e[16:32] }
func (e *gptEntry) startingLBA() []byte         { return e[32:40] }
func (e *gptEntry) endingLBA() []byte           { return e[40:48] }
func (e *gptEntry) partitionName() []byte       { return e[56:128] }

// mbrRecord is the legacy Master Boot Record, the first 512 bytes of LBA 0
// (UEFI 2.10 section 5.2.1, table 5.1); a protective MBR has the same
// layout (table 5.3).
type mbrRecord [512]byte

// bootArea is what mkimg fills from -b: BootCode, UniqueMBRDiskSignature
// and Unknown (bytes 0 to 440, 440 to 444 and 444 to 446), the bytes before
// the partition records.
func (m *mbrRecord) bootArea() []byte  { return m[0:mbrPartitionOffset] }
func (m *mbrRecord) signature() []byte { return m[mbrSignatureOffset:512] }

// partitionRecord returns the i'th of the four partition records.
func (m *mbrRecord) partitionRecord(i int) *mbrPartitionRecord {
	return (*mbrPartitionRecord)(m[mbrPartitionOffset+16*i:][:16])
}

// mbrPartitionRecord is one MBR partition record (UEFI 2.10 table 5.2).
type mbrPartitionRecord [16]byte

func (p *mbrPartitionRecord) bootIndicator() []byte { return p[0:1] }
func (p *mbrPartitionRecord) startingCHS() []byte   { return p[1:4] }
func (p *mbrPartitionRecord) osType() []byte        { return p[4:5] }
func (p *mbrPartitionRecord) endingCHS() []byte     { return p[5:8] }
func (p *mbrPartitionRecord) startingLBA() []byte   { return p[8:12] }
func (p *mbrPartitionRecord) sizeInLBA() []byte     { return p[12:16] }
