package mkimg

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"runtime"
	"strings"
	"testing"
)

// protectiveMBR returns LBA 0 of a GPT disk of sectors 512-byte sectors.
func protectiveMBR(sectors uint32) []byte {
	var m mbrRecord
	r := m.partitionRecord(0)
	r.osType()[0] = pmbrOSType
	binary.LittleEndian.PutUint32(r.startingLBA(), 1)
	binary.LittleEndian.PutUint32(r.sizeInLBA(), sectors-1)
	binary.LittleEndian.PutUint16(m.signature(), mbrSignature)
	return m[:]
}

// smallGPT returns an 8-sector GPT disk whose primary header at LBA 1
// lists n entries of 128 bytes at LBA 2, of which entry 1 spans LBA first
// to last, with every CRC right; the backup header is left out.
func smallGPT(n uint32, first, last uint64) []byte {
	disk := make([]byte, 8*512)
	copy(disk, protectiveMBR(8))
	e := (*gptEntry)(disk[1024:][:gptEntrySize])
	gptTypes["efi"].encode(e.partitionTypeGUID())
	binary.LittleEndian.PutUint64(e.startingLBA(), first)
	binary.LittleEndian.PutUint64(e.endingLBA(), last)
	h := (*gptHeader)(disk[512:][:gptHeaderSize])
	copy(h.signature(), gptSignature[:])
	binary.LittleEndian.PutUint32(h.revision(), gptRevision)
	binary.LittleEndian.PutUint32(h.headerSize(), gptHeaderSize)
	binary.LittleEndian.PutUint64(h.myLBA(), 1)
	binary.LittleEndian.PutUint64(h.alternateLBA(), 7)
	binary.LittleEndian.PutUint64(h.partitionEntryLBA(), 2)
	binary.LittleEndian.PutUint32(h.numberOfPartitionEntries(), n)
	binary.LittleEndian.PutUint32(h.sizeOfPartitionEntry(), gptEntrySize)
	if end := 1024 + int(n)*gptEntrySize; end <= len(disk) {
		binary.LittleEndian.PutUint32(h.partitionEntryArrayCRC32(), crc32.ChecksumIEEE(disk[1024:end]))
	}
	binary.LittleEndian.PutUint32(h.headerCRC32(), crc32.ChecksumIEEE(h[:]))
	return disk
}

// refusedDisks are malformed disks ReadTable must refuse with the
// sentinel and a message naming the structure and byte; they are also
// the seeds in testdata/fuzz.
var refusedDisks = []struct {
	name string
	disk func() []byte
	is   error
	msg  string
}{
	{"gpt-huge-array", func() []byte { return smallGPT(1<<28, 3, 3) }, ErrFormat,
		"primary GPT header at byte 0x200: entry array of 268435456 entries of 128 bytes is larger than 1048576 bytes"},
	{"pmbr-only", func() []byte { return append(protectiveMBR(8), make([]byte, 7*512)...) }, ErrFormat,
		"protective MBR at byte 0x1be but no GPT header"},
	{"no-table", func() []byte { return make([]byte, 4096) }, ErrNoTable, "no partition table of the schemes gpt, "},
}

// TestReadRefuses checks that ReadTable refuses malformed tables with an
// error that wraps the right sentinel and says where.
func TestReadRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range refusedDisks {
		b := tc.disk()
		_, err := ReadTable(bytes.NewReader(b), int64(len(b)))
		if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v, want %v with %q", tc.name, err, tc.is, tc.msg)
		}
	}
}

// TestHugeArrayNotAllocated checks that an entry array of 2^28 entries
// (32 GiB) is refused before anything of its size is allocated. It does
// not run in parallel, so that the allocation count is its own.
func TestHugeArrayNotAllocated(t *testing.T) {
	// not parallel: it counts the process's allocations, which parallel
	// tests would add to
	b := smallGPT(1<<28, 3, 3)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ReadTable(bytes.NewReader(b), int64(len(b)))
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("refusing a huge entry array allocated %d bytes", n)
	}
}

// TestReadSmallGPT checks the hand-made GPT of the seeds reads when its
// entry lies within the disk, with the missing backup header a problem.
func TestReadSmallGPT(t *testing.T) {
	t.Parallel()
	b := smallGPT(4, 3, 5)
	tab, err := ReadTable(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Partitions) != 1 || tab.Partitions[0].Start != 3*512 || tab.Partitions[0].Size != 3*512 || tab.Partitions[0].Type != "efi" {
		t.Errorf("partitions %+v", tab.Partitions)
	}
	if p := strings.Join(tab.Problems, "; "); !strings.Contains(p, "backup GPT header at byte 0xe00: no GPT header") {
		t.Errorf("problems %q", p)
	}
}
