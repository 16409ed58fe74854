package cd9660

// slComponent is one Component Record of an SL entry (RRIP 4.1.3.1): its
// flags and its content.
type slComponent struct {
	flags   byte
	content string
}

// slComponents splits a symbolic link target into component records as
// makefs's cd9660_createSL reads it: a leading "/" as a root component,
// "." and ".." as current and parent components, empty components (from
// "//" or a trailing "/") left out. makefs loops forever on a component
// such as "..x"; here it is content.
func slComponents(target string) []slComponent {
	var out []slComponent
	p := 0
	if p < len(target) && target[p] == '/' {
		out = append(out, slComponent{flags: slRoot})
		p++
	}
	for p <= len(target) {
		end := p
		for end < len(target) && target[end] != '/' {
			end++
		}
		switch c := target[p:end]; c {
		case "":
		case ".":
			out = append(out, slComponent{flags: slCurrent})
		case "..":
			out = append(out, slComponent{flags: slParent})
		default:
			out = append(out, slComponent{content: c})
		}
		p = end + 1
	}
	return out
}

// slEntries returns the SL entries of the symbolic link target. A target
// whose components fit one entry by makefs's rule (each component starts
// before byte 249 less its length) gets makefs's one entry. A longer one
// is where makefs writes an uninitialised flags byte and, when a
// component ends at its split point, a component holding two zero bytes;
// here it is split into entries of at most 249 bytes of components by
// splitSL. See Deviations in DETAILS.md.
func slEntries(target string) []suspEntry {
	comps := slComponents(target)
	used, fits := 0, true
	for _, c := range comps {
		if used+len(c.content) >= slMax {
			fits = false
			break
		}
		used += 2 + len(c.content)
	}
	if fits {
		return []suspEntry{slEntry(comps, 0)}
	}
	return splitSL(comps)
}

// slEntry builds one SL entry of the components with the SL flags.
func slEntry(comps []slComponent, flags byte) suspEntry {
	n := 5
	for _, c := range comps {
		n += 2 + len(c.content)
	}
	e := newEntry(sigSL, n)
	e.flags()[0] = flags
	area, off := e.componentArea(), 0
	for _, c := range comps {
		area[off], area[off+1] = c.flags, byte(len(c.content)) // component flags, length
		off += 2 + copy(area[off+2:], c.content)
	}
	return e
}

// splitSL packs the components into entries of at most slMax bytes of
// component records each, every entry but the last with the SL flag
// CONTINUE. libarchive (bsdtar) and libisofs join consecutive SL entries
// with no "/" between them, and Linux, isoinfo and this package's reader
// with a "/" unless the entry's last component continues, so no entry may
// end with a whole component. A component that does not fit is split
// where the entry fills up (its first part with the component flag
// CONTINUE). When it cannot be split there (no room for a byte of it, or
// it is "." or ".."), the entry's last component gives its last byte to
// the next entry, and when that has fewer than two bytes the entry ends
// with an empty component flagged CONTINUE: every reader puts the "/"
// before that component and joins what follows to it.
func splitSL(comps []slComponent) []suspEntry {
	var p slPacker
	for i := 0; i < len(comps); i++ {
		c := comps[i]
		room := slMax - p.used
		switch {
		case 2+len(c.content) <= room:
			p.add(c)
			continue
		case c.content != "" && room >= 3:
			k := room - 2
			p.add(slComponent{flags: c.flags | slContinue, content: c.content[:k]})
			p.flush()
			comps[i].content = c.content[k:]
		default:
			p.endOnBoundary()
		}
		i--
	}
	return append(p.out, slEntry(p.cur, 0))
}

// slPacker collects SL entries: those made so far, and the components of
// the next one and the bytes they take.
type slPacker struct {
	out  []suspEntry
	cur  []slComponent
	used int
}

// add adds a component to the next entry.
func (p *slPacker) add(c slComponent) {
	p.cur = append(p.cur, c)
	p.used += 2 + len(c.content)
}

// flush makes the entry of the components so far, with the SL flag
// CONTINUE, and starts the next one with the components next.
func (p *slPacker) flush(next ...slComponent) {
	p.out = append(p.out, slEntry(p.cur, slContinue))
	p.cur, p.used = nil, 0
	for _, c := range next {
		p.add(c)
	}
}

// endOnBoundary ends the entry where the next component cannot start in
// it, so that readers that join SL entries with no "/" read the target
// right (see splitSL), and flushes it.
func (p *slPacker) endOnBoundary() {
	last := len(p.cur) - 1
	l := p.cur[last]
	switch {
	case len(l.content) >= 2:
		p.cur[last] = slComponent{flags: l.flags | slContinue, content: l.content[:len(l.content)-1]}
		p.flush(slComponent{flags: l.flags, content: l.content[len(l.content)-1:]})
	case l.flags&slRoot != 0:
		p.flush() // "/" takes no separator after it
	case slMax-p.used >= 2:
		p.add(slComponent{flags: slContinue})
		p.flush()
	default:
		p.cur = append(p.cur[:last], slComponent{flags: slContinue})
		p.flush(l)
	}
}
