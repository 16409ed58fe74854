package ext

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// The journal's superblock, journal_superblock_t of the kernel's
// include/linux/jbd2.h: the first 1024 bytes of the journal (inode
// s_journal_inum), every field big-endian. The reader only describes it;
// it neither replays nor checks the journal's transactions.

var bigEndian = binary.BigEndian

// jbd2Magic (JBD2_MAGIC_NUMBER) is in writer.go, which writes the journal.
const (
	jbd2SuperSize   = 1024  // sizeof(journal_superblock_t)
	jbd2CsumV2      = 0x8   // JBD2_FEATURE_INCOMPAT_CSUM_V2
	jbd2CsumV3      = 0x10  // JBD2_FEATURE_INCOMPAT_CSUM_V3
	jbd2UsersOffset = 0x100 // s_users, 16 bytes a user
	jbd2MaxUsers    = 48    // JBD2_USERS_MAX
)

// jbd2Super is journal_superblock_t.
type jbd2Super []byte

func (j jbd2Super) hMagic() []byte           { return j[0x0:][:4] }
func (j jbd2Super) hBlocktype() []byte       { return j[0x4:][:4] }
func (j jbd2Super) hSequence() []byte        { return j[0x8:][:4] }
func (j jbd2Super) sBlocksize() []byte       { return j[0xc:][:4] }
func (j jbd2Super) sMaxlen() []byte          { return j[0x10:][:4] }
func (j jbd2Super) sFirst() []byte           { return j[0x14:][:4] }
func (j jbd2Super) sSequence() []byte        { return j[0x18:][:4] }
func (j jbd2Super) sStart() []byte           { return j[0x1c:][:4] }
func (j jbd2Super) sErrno() []byte           { return j[0x20:][:4] }
func (j jbd2Super) sFeatureCompat() []byte   { return j[0x24:][:4] }
func (j jbd2Super) sFeatureIncompat() []byte { return j[0x28:][:4] }
func (j jbd2Super) sFeatureRoCompat() []byte { return j[0x2c:][:4] }
func (j jbd2Super) sUUID() []byte            { return j[0x30:][:16] }
func (j jbd2Super) sNrUsers() []byte         { return j[0x40:][:4] }
func (j jbd2Super) sDynsuper() []byte        { return j[0x44:][:4] }
func (j jbd2Super) sMaxTransaction() []byte  { return j[0x48:][:4] }
func (j jbd2Super) sMaxTransData() []byte    { return j[0x4c:][:4] }
func (j jbd2Super) sChecksumType() []byte    { return j[0x50:][:1] }
func (j jbd2Super) sNumFcBlks() []byte       { return j[0x54:][:4] }
func (j jbd2Super) sHead() []byte            { return j[0x58:][:4] }
func (j jbd2Super) sChecksum() []byte        { return j[0xfc:][:4] }
func (j jbd2Super) sUsers() []byte           { return j[jbd2UsersOffset:][:16*jbd2MaxUsers] }

// jbd2SuperCsum is s_checksum's value for j: the crc32c of the 1024
// bytes with s_checksum zeroed, as jbd2_superblock_csum computes it.
func jbd2SuperCsum(j jbd2Super) uint32 {
	at := int(fieldOff(j, j.sChecksum()))
	c := crc32c(^uint32(0), j[:at])
	c = crc32c(c, []byte{0, 0, 0, 0})
	return crc32c(c, j[at+4:jbd2SuperSize])
}

// journal appends the fields of the journal inode (path "journal"),
// which no path reaches, and of the journal's superblock in its first
// block, where the file system has an internal journal. It returns the
// journal's inode number, 0 for none.
func (d *describer) journal() (uint32, error) {
	f := d.f
	ino := le.Uint32(f.sb.sJournalInum())
	if !f.hasCompat(compatHasJournal) || ino == 0 {
		return 0, nil
	}
	const p = "journal"
	in, err := f.inode(ino)
	if err != nil {
		return 0, fmt.Errorf("ext: journal inode %d: %w", ino, err)
	}
	if err := d.inode(p, in); err != nil {
		return 0, fmt.Errorf("ext: journal inode %d: %w", ino, err)
	}
	if in.typ() != sIFREG || in.Size < jbd2SuperSize || in.Flags&inlineDataFL != 0 {
		return ino, nil
	}
	m, err := f.mapOf(in)
	if err != nil {
		return 0, err
	}
	pblk, _, err := m.lookup(0)
	if err != nil || pblk == 0 || pblk >= f.g.blocks || int64(pblk)*f.g.bsize+jbd2SuperSize > f.size {
		return ino, err
	}
	off := int64(pblk) * f.g.bsize
	j := make(jbd2Super, jbd2SuperSize)
	if err := f.readAt(j, off); err != nil {
		return 0, fmt.Errorf("ext: journal superblock at byte %#x: %w", off, err)
	}
	add := func(name string, b []byte, kind int) {
		v := value(b, kind)
		if kind == fmtUns || kind == fmtHex {
			var u uint64
			for _, c := range b {
				u = u<<8 | uint64(c)
			}
			v = strconv.FormatUint(u, 10)
			if kind == fmtHex {
				v = "0x" + strconv.FormatUint(u, 16)
			}
		}
		d.out = append(d.out, describe.Field{Path: p, Name: name, Offset: off + fieldOff(j, b), Size: int64(len(b)), Value: v})
	}
	for _, x := range []struct {
		name string
		b    []byte
		kind int
	}{
		{"h_magic", j.hMagic(), fmtHex},
		{"h_blocktype", j.hBlocktype(), fmtUns},
		{"h_sequence", j.hSequence(), fmtUns},
		{"s_blocksize", j.sBlocksize(), fmtUns},
		{"s_maxlen", j.sMaxlen(), fmtUns},
		{"s_first", j.sFirst(), fmtUns},
		{"s_sequence", j.sSequence(), fmtUns},
		{"s_start", j.sStart(), fmtUns},
		{"s_errno", j.sErrno(), fmtUns},
		{"s_feature_compat", j.sFeatureCompat(), fmtHex},
		{"s_feature_incompat", j.sFeatureIncompat(), fmtHex},
		{"s_feature_ro_compat", j.sFeatureRoCompat(), fmtHex},
		{"s_uuid", j.sUUID(), fmtUUID},
		{"s_nr_users", j.sNrUsers(), fmtUns},
		{"s_dynsuper", j.sDynsuper(), fmtUns},
		{"s_max_transaction", j.sMaxTransaction(), fmtUns},
		{"s_max_trans_data", j.sMaxTransData(), fmtUns},
		{"s_checksum_type", j.sChecksumType(), fmtUns},
		{"s_num_fc_blks", j.sNumFcBlks(), fmtUns},
		{"s_head", j.sHead(), fmtUns},
		{"s_users", j.sUsers(), fmtHash},
	} {
		add(x.name, x.b, x.kind)
	}
	cf := describe.Field{Path: p, Name: "s_checksum", Offset: off + fieldOff(j, j.sChecksum()), Size: 4}
	got := bigEndian.Uint32(j.sChecksum())
	cf.Value = "0x" + strconv.FormatUint(uint64(got), 16)
	if bigEndian.Uint32(j.hMagic()) == jbd2Magic && bigEndian.Uint32(j.sFeatureIncompat())&(jbd2CsumV2|jbd2CsumV3) != 0 {
		want := jbd2SuperCsum(j)
		cf.Value = csumValue(uint64(got), uint64(want))
		if got != want {
			f.warn(fmt.Sprintf("journal superblock at byte %#x: s_checksum %#08x, computed %#08x", off, got, want))
		}
	}
	d.out = append(d.out, cf)
	return ino, nil
}
