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
// here it is split into entries of at most 249 bytes of components,
// and never between two components: the last component of every entry
// but the last continues into the next entry (component flag CONTINUE),
// because bsdtar and libisofs join consecutive SL entries with no "/"
// between them (Linux adds one only where the component does not
// continue). See the package documentation.
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
// component records each, a component split where an entry fills up; an
// entry that would end between two components gives the last byte of its
// last content component to the next entry instead.
func splitSL(comps []slComponent) []suspEntry {
	var out []suspEntry
	var cur []slComponent
	used := 0
	flush := func() {
		out = append(out, slEntry(cur, slContinue))
		cur, used = nil, 0
	}
	for i := 0; i < len(comps); i++ {
		c := comps[i]
		room := slMax - used
		switch {
		case 2+len(c.content) <= room:
			cur = append(cur, c)
			used += 2 + len(c.content)
		case c.content != "" && room >= 3:
			k := room - 2
			cur = append(cur, slComponent{flags: c.flags | slContinue, content: c.content[:k]})
			flush()
			comps[i].content = c.content[k:]
			i--
		default:
			last := len(cur) - 1
			if last >= 0 && len(cur[last].content) >= 2 {
				l := cur[last]
				cur[last] = slComponent{flags: l.flags | slContinue, content: l.content[:len(l.content)-1]}
				flush()
				cur, used = []slComponent{{flags: l.flags, content: l.content[len(l.content)-1:]}}, 3
			} else {
				flush()
			}
			i--
		}
	}
	e := slEntry(cur, 0)
	return append(out, e)
}
