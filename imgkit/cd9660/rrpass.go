package cd9660

import "github.com/fixturegen/fixturegen/imgkit/fstree"

// rrPass gives every record its Rock Ridge entries (cd9660_susp_initialize)
// and, once the layout is known, points the CE, CL and PL entries at their
// targets (cd9660_susp_finalize).
type rrPass struct {
	root, rrMoved *isoNode
	serials       map[*fstree.Node]uint32
	caSize        int64 // bytes of all continuation areas
	// attrsFirst puts the root's PX and TF before its ER, so that they
	// stay in the root's own record (makefs's order moves them to the
	// continuation area). libarchive takes an image for Rock Ridge only
	// if it sees RRIP entries in the root's "." record itself, and reads
	// the Joliet hierarchy of a makefs-ordered image instead.
	attrsFirst bool
	debian     bool // Debian's entries (compat.go), serials given in serials
}

// serial is the POSIX file serial number of n: 1, 2, ... in the order the
// pass meets the files, the names of a hard-link group sharing one.
func (p *rrPass) serial(n *fstree.Node) uint32 {
	if n.HardLink != nil {
		n = n.HardLink
	}
	if s, ok := p.serials[n]; ok {
		return s
	}
	s := uint32(len(p.serials) + 1)
	p.serials[n] = s
	return s
}

// initialize makes the entries of n and its descendants, pre-order; parent
// and grand are the records makefs's pass passes along with n.
func (p *rrPass) initialize(n, parent, grand *isoNode) {
	n.rr = rrRecord{entries: p.entriesOf(n, parent, grand), ce: -1, cl: -1, pl: -1}
	p.continuation(n)
	for _, c := range n.children {
		p.initialize(c, n, parent)
	}
}

// attrs are the PX and TF entries of the source node s.
func (p *rrPass) attrs(s *fstree.Node) []suspEntry {
	tf := tfEntry(s)
	if p.debian {
		tf = tf[:debianTFLen]
		tf.length()[0] = debianTFLen
	}
	return []suspEntry{pxEntry(s, p.serial(s)), tf}
}

// entriesOf lists the entries of one record, in makefs's order.
func (p *rrPass) entriesOf(n, parent, grand *isoNode) []suspEntry {
	if p.debian {
		if out, ok := p.debianEntries(n, parent, grand); ok {
			return out
		}
	}
	var out []suspEntry
	switch n.kind {
	case kindDot:
		switch {
		case n.parent == p.root && p.attrsFirst:
			return append(append([]suspEntry{spEntry()}, p.attrs(parent.src)...), erEntry())
		case n.parent == p.root:
			out = append(out, spEntry(), erEntry())
		}
		return append(out, p.attrs(parent.src)...)
	case kindDotDot:
		if grand != nil {
			out = p.attrs(grand.src)
		}
		if parent.realParent != nil {
			out = append(out, newEntry(sigPL, clLen))
		}
		return out
	}
	out = p.attrs(n.src)
	if n.src.Type == fstree.TypeSymlink && len(n.children) == 0 {
		out = append(out, slEntries(n.src.Link)...)
	}
	if n.src.Type == fstree.TypeChar || n.src.Type == fstree.TypeBlock {
		out = append(out, pnEntry(n.src))
	}
	name := n.orig
	if n == p.rrMoved {
		name = relocatedRRName
	}
	if !p.debian || n == p.rrMoved || !n.nameIsIdentifier() {
		out = append(out, nmEntries(name)...)
	}
	if n.relocated != nil {
		out = append(out, newEntry(sigCL, clLen))
	}
	if n.realParent != nil && !p.debian {
		out = append(out, newEntry(sigRE, reLen))
	}
	return out
}

// continuation decides which entries of n stay in its System Use field
// and which go to a continuation area, as
// cd9660_susp_handle_continuation_common does: the entries that fit in a
// record of 254 bytes stay, and when they do not all fit (or fill it
// exactly), a CE entry follows the last one after which 28 bytes were
// still free, and the entries after it move to the area.
func (p *rrPass) continuation(n *isoNode) {
	r := &n.rr
	working := suFieldMax - n.baseLen
	if len(n.tail) > 0 {
		working -= len(n.tail) + suspHeaderLen // the tail and an ST entry
	}
	used, usedPreCE, last, preCE := 0, 0, -1, -1
	for i, e := range r.entries {
		if working < 0 {
			break
		}
		working -= int(e[2])
		if working >= 0 {
			last = i
			used += int(e[2])
		}
		if working >= ceLen {
			preCE, usedPreCE = last, used
		}
	}
	r.inSUF, r.suLen = last+1, used
	if working <= 0 {
		r.ce = preCE + 1
		r.entries = append(r.entries[:r.ce], append([]suspEntry{newEntry(sigCE, ceLen)}, r.entries[r.ce:]...)...)
		r.inSUF, r.suLen = r.ce+1, usedPreCE+ceLen
		for _, e := range r.entries[r.inSUF:] {
			r.caLen += int(e[2])
		}
	}
	if len(n.tail) > 0 {
		r.entries = append(r.entries[:r.inSUF], append([]suspEntry{newEntry(sigST, suspHeaderLen)}, r.entries[r.inSUF:]...)...)
		r.inSUF++
		r.suLen += suspHeaderLen
	}
	p.caSize += int64(r.caLen)
	for i, e := range r.entries {
		switch string(e.signatureWord()) {
		case sigCL:
			r.cl = i
		case sigPL:
			r.pl = i
		}
	}
}

// recordLen is the length of n's directory record: the fixed part, the
// identifier and its padding, the System Use field, and a byte more when
// that is odd.
func (n *isoNode) recordLen(rr bool) int {
	size := n.baseLen + len(n.tail)
	if rr {
		size += n.rr.suLen
	}
	return size + size&1
}

// finalize fills the CE, CL and PL entries (cd9660_susp_finalize), the
// continuation areas placed, in the pass's order, by place when it is not
// nil (and by the layout of the tree before).
func (p *rrPass) finalize(n *isoNode, place func(r *rrRecord)) {
	r := &n.rr
	if r.caLen > 0 {
		if place != nil {
			place(r)
		}
		e := r.entries[r.ce]
		put733(e.blockLocationOfContinuationArea(), r.caSector)
		put733(e.offsetToStartOfContinuationArea(), r.caOff)
		put733(e.lengthOfTheContinuationArea(), uint32(r.caLen))
	}
	if r.cl >= 0 {
		put733(r.entries[r.cl].locationOfChildDirectory(), n.relocated.extent)
	}
	if r.pl >= 0 {
		put733(r.entries[r.pl].locationOfParentDirectory(), n.parent.realParent.extent)
	}
	for _, c := range n.children {
		p.finalize(c, place)
	}
}
