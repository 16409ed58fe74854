package cd9660

import (
	"bytes"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
)

// Joliet (Microsoft's Joliet Specification, 1995): a Supplementary Volume
// Descriptor with the escape sequence of UCS-2 level 3, and a directory
// hierarchy of its own, with UCS-2 big-endian names up to 64 characters,
// whose file records share the primary hierarchy's extents. FreeBSD's
// makefs has none; fixturegen adds it with Options.Joliet.

// jolietMaxName is the most UCS-2 characters of a Joliet identifier.
const jolietMaxName = 64

// jolietEscape is the escape sequence of UCS-2 Level 3 (Joliet 2.1).
const jolietEscape = "%/E"

// jolietVolume is the Joliet hierarchy and where it is placed.
type jolietVolume struct {
	root  *isoNode
	dirs  []*isoNode
	ptLen int
	lPath int64
	mPath int64
}

// jolietInfo links a Joliet record to the primary record of the same
// file, whose extent it shares.
type jolietInfo struct {
	primary *isoNode
}

// jolietName encodes name as a Joliet identifier: UTF-8 decoded (a byte
// that is not UTF-8, and a character outside the Basic Multilingual
// Plane, as "_"), the characters Joliet forbids (* / : ; ? \ and control
// characters) as "_", at most 64 characters, big-endian.
func jolietName(name string) []byte {
	var out []byte
	for len(name) > 0 && len(out) < 2*jolietMaxName {
		r, size := utf8.DecodeRuneInString(name)
		name = name[size:]
		if r == utf8.RuneError && size == 1 {
			r = '_'
		}
		if r < 0x20 || r > 0xFFFF || r >= 0xD800 && r <= 0xDFFF || bytes.ContainsRune([]byte(`*/:;?\`), r) {
			r = '_'
		}
		out = append(out, byte(r>>8), byte(r))
	}
	return out
}

// buildJoliet makes the Joliet hierarchy from the primary one: the source
// tree's shape (relocated directories back in their places, no RR_MOVED),
// names made unique in each directory.
func (v *volume) buildJoliet() error {
	v.joliet = &jolietVolume{}
	root := &isoNode{kind: kindDir, src: v.root.src, date: v.root.date, nameLen: 1, baseLen: 34}
	v.joliet.root = root
	v.jolietChildren(v.root, root)
	return nil
}

// jolietChildren adds the Joliet records of the primary directory p's
// children to the Joliet directory d, recursively.
func (v *volume) jolietChildren(p, d *isoNode) {
	for _, c := range p.children {
		if c.kind == kindDot || c.kind == kindDotDot || c == v.rrMoved {
			continue
		}
		n := &isoNode{kind: c.kind, src: c.src, orig: c.orig, parent: d, date: c.date, jdir: &jolietInfo{primary: c},
			section: c.section, sections: c.sections}
		if c.kind == kindFile && !c.virtual {
			n.sizeLen = c.sizeLen // a symlink's is its target's length, as in its primary record
		}
		if c.relocated != nil {
			n.kind, n.date = kindDir, c.relocated.date
		}
		n.jname = jolietName(n.orig)
		d.children = append(d.children, n)
		switch {
		case c.relocated != nil:
			v.jolietChildren(c.relocated, n)
		case c.kind == kindDir:
			v.jolietChildren(c, n)
		}
	}
	slices.SortStableFunc(d.children, func(a, b *isoNode) int { return bytes.Compare(a.jname, b.jname) })
	uniqueJolietNames(d.children)
	for _, c := range d.children {
		c.nameLen = len(c.jname)
		c.baseLen = dirRecordLen(c.nameLen, 0)
	}
	d.dot = &isoNode{kind: kindDot, virtual: true, parent: d, nameLen: 1, baseLen: 34}
	d.dotdot = &isoNode{kind: kindDotDot, virtual: true, parent: d, nameLen: 1, baseLen: 34}
	d.dotdot.name[0] = 1
	d.children = slices.Insert(d.children, 0, d.dot, d.dotdot)
}

// uniqueJolietNames renames the second and later of equal names (64
// characters cut from longer ones can meet) by ending them with "~N".
func uniqueJolietNames(cs []*isoNode) {
	seen := map[string]bool{}
	for _, c := range cs {
		seen[string(c.jname)] = true
	}
	for i := 1; i < len(cs); i++ {
		if !bytes.Equal(cs[i].jname, cs[i-1].jname) || cs[i].section > 0 {
			continue // a later section of a file keeps its name
		}
		for k := 1; ; k++ {
			suffix := jolietName(fmt.Sprintf("~%d", k))
			base := cs[i].jname[:min(len(cs[i].jname), 2*jolietMaxName-len(suffix))]
			name := append(slices.Clip(base), suffix...)
			if !seen[string(name)] {
				seen[string(name)] = true
				cs[i].jname = name
				break
			}
		}
	}
}

// placeJolietPathTables puts the Joliet path tables after the primary
// ones.
func (v *volume) placeJolietPathTables() error {
	j := v.joliet
	if j == nil {
		return nil
	}
	j.dirs, j.ptLen = pathTable(j.root, func(d *isoNode) int { return d.nameLen })
	n := sectorsFor(int64(j.ptLen))
	j.lPath, j.mPath = v.next, v.next+n
	v.next += 2 * n
	return nil
}

// placeJolietTree gives the Joliet directories their extents, in path
// table order, after the primary hierarchy and one zero sector: makefs
// gives an empty file, a symlink or a device the next free sector as its
// extent (a symlink with its target's length as Data Length), and that
// must not be a Joliet directory, which bsdtar then reads as a loop. The
// Joliet root must come after the primary root, or libarchive reads the
// Joliet hierarchy instead of the Rock Ridge one.
func (v *volume) placeJolietTree() error {
	j := v.joliet
	if j == nil {
		return nil
	}
	v.next++
	for _, d := range j.dirs {
		d.extent = uint32(v.next)
		d.sectors = 1
		cur := 0
		for _, c := range d.children {
			rl := c.recordLen(false)
			if rl+cur >= SectorSize {
				cur = 0
				d.sectors++
			}
			cur += rl
		}
		v.next += d.sectors
	}
	return nil
}

// jolietDescriptor builds the Joliet Supplementary Volume Descriptor.
func (v *volume) jolietDescriptor() *volumeDescriptor {
	j := v.joliet
	vd := new(volumeDescriptor)
	descriptorHeader(vd, vdTypeSupplementary)
	copy(vd.escapeSequences(), jolietEscape)
	v.fillDescriptor(vd, ucs2Padded, j.root, j.ptLen, j.lPath, j.mPath)
	return vd
}

// ucs2Padded writes the ASCII string s into f as UCS-2 big-endian, padded
// with UCS-2 blanks (an odd last byte stays zero).
func ucs2Padded(f []byte, s string) {
	for i := 0; i+1 < len(f); i += 2 {
		c := byte(' ')
		if i/2 < len(s) {
			c = s[i/2]
		}
		f[i], f[i+1] = 0, c
	}
}

// writeJoliet writes the Joliet path tables and directories.
func (v *volume) writeJoliet(im *bcache.Image) error {
	j := v.joliet
	if j == nil {
		return nil
	}
	if err := writeSector(im, j.lPath, buildPathTable(j.dirs, j.ptLen, false)); err != nil {
		return err
	}
	if err := writeSector(im, j.mPath, buildPathTable(j.dirs, j.ptLen, true)); err != nil {
		return err
	}
	for _, d := range j.dirs {
		for _, c := range d.children {
			if c.kind == kindFile {
				c.extent = c.jdir.primary.extent
			}
		}
		if err := writeSector(im, int64(d.extent), v.dirExtentOf(d, false)); err != nil {
			return err
		}
	}
	return nil
}
