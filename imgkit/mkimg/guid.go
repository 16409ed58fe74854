package mkimg

import (
	"crypto/sha256"
	"encoding/binary"
	"hash"
)

// guids are the GUIDs one GPT needs: the disk's and one per used slot, in
// the order of layout.parts.
type guids struct {
	disk  GUID
	parts []GUID
}

// guidDomain starts every hash the derivation rule takes, so that its
// GUIDs cannot collide with another use of SHA-256 over the same bytes.
const guidDomain = "fixturegen/mkimg guid v2\x00"

// guids returns the disk's GUIDs. In FreeBSD's test mode (-y) they are
// mkimg's counters: the n'th GUID drawn has every byte n, the partitions'
// drawn in slot order before the disk's. Otherwise those given
// (Options.DiskGUID, Partition.GUID) are kept and the others follow the
// rule DETAILS.md gives, from the rule's seed (l.idSeed,
// which write computes from the layout and each used partition's content
// digest before it asks for the GUIDs; the contents are not read when no
// GUID is derived).
func (l *layout) guids() guids {
	g := guids{parts: make([]GUID, len(l.parts))}
	if l.testMode {
		n := byte(0)
		for i := range g.parts {
			n++
			g.parts[i] = counterGUID(n)
		}
		g.disk = counterGUID(n + 1)
		return g
	}
	g.disk = l.diskGUID
	for i, p := range l.parts {
		g.parts[i] = p.GUID
	}
	if !l.derives() {
		return g
	}
	seed := l.idSeed // derives implies hashes: write computed it from the sums
	if g.disk.IsZero() {
		g.disk = derivedGUID(seed, "disk", 0)
	}
	for i, p := range l.parts {
		if g.parts[i].IsZero() {
			g.parts[i] = derivedGUID(seed, "partition", uint32(p.index))
		}
	}
	return g
}

// counterGUID is the GUID FreeBSD's mkimg -y draws n'th.
func counterGUID(n byte) GUID {
	var g GUID
	for i := range g {
		g[i] = n
	}
	return g
}

// seed hashes everything the disk's bytes depend on besides its GUIDs:
// the scheme, sector and block sizes, geometry, active slot, slot count,
// disk size, the boot code, and each used slot's index, type, label,
// start, sector count and content sum. The slots are hashed in slot
// order with their start sectors, so the rule stays one function of the
// layout when offsets put partitions out of disk order.
func (l *layout) seed(sums [][sha256.Size]byte) [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte(guidDomain))
	writeString(h, l.scheme)
	for _, v := range []uint64{l.secsz, l.blksz, l.heads, l.track, uint64(l.active), uint64(l.slots), l.sectors} {
		writeUint64(h, v)
	}
	boot := sha256.Sum256(l.bootcode)
	h.Write(boot[:])
	for i, p := range l.parts {
		writeUint64(h, uint64(p.index))
		writeString(h, lower7(p.Type))
		writeString(h, p.Label)
		writeUint64(h, p.start)
		writeUint64(h, p.sectors)
		h.Write(sums[i][:])
	}
	return [sha256.Size]byte(h.Sum(nil))
}

// derivedGUID is the version 4 GUID of the rule: the first 16 bytes of
// SHA-256(guidDomain, seed, role, index) as RFC 4122 octets, with the
// version nibble set to 4 and the variant bits to 10.
func derivedGUID(seed [sha256.Size]byte, role string, index uint32) GUID {
	h := sha256.New()
	h.Write([]byte(guidDomain))
	h.Write(seed[:])
	writeString(h, role)
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], index)
	h.Write(b[:])
	var g GUID
	copy(g[:], h.Sum(nil))
	g[6] = g[6]&0x0f | 0x40
	g[8] = g[8]&0x3f | 0x80
	return g
}

// writeString hashes s followed by a NUL, so that adjacent strings stay
// apart.
func writeString(h hash.Hash, s string) {
	h.Write([]byte(s))
	h.Write([]byte{0})
}

// writeUint64 hashes v as 8 little-endian bytes.
func writeUint64(h hash.Hash, v uint64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	h.Write(b[:])
}
