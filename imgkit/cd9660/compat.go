package cd9660

import (
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/makefs/fsopt"
)

// compat=debian: the bytes of Debian's makefs -t cd9660 (package makefs
// 20190105, a port of NetBSD's makefs of that time), which differ from
// FreeBSD's in these ways, all found by comparing the two (the tests
// compare fixturegen's compat=debian images with Debian's makefs):
//
//   - the System Identifier is "NetBSD", and the Application Use field
//     starts with "[APPLICATION USE]--> ..." and ends with
//     "... <--[APPLICATION USE]";
//   - -T changes no time: files keep their own, the root's record is
//     dated with its modification time, and the volume descriptors with
//     the clock (here: the root's modification time, whatever -T says);
//     an mtree spec's time= sets a file's modification and access times,
//     and its change time to the clock (here: the spec's time, see the
//     Deviations in DETAILS.md);
//   - under Rock Ridge, TF entries are 25 bytes long, the last byte of
//     the change time (its offset from GMT) cut off; a "." record holds
//     only PX, and a ".." record PX (after PL), except the root's ".",
//     which holds SP and ER and then the root's own PX, TF and NM (".");
//     a record whose identifier is its name already (a directory "SUB")
//     has no NM; the PX serial numbers are the walk's, from 3, pre-order
//     (the root's where its "." sorts among its children), hard links
//     sharing one;
//   - a relocated directory has no RE entry, and its placeholder is named
//     as a directory ("H", not "H.;1");
//   - at level 1 the fourth character of an extension ends the name only
//     when it is not a dot ("a.bcd.efgh" is "A.BCD_EFGH"); at level 2 a
//     directory name is cut at 30 characters, as a file name is, and its
//     first dot stays ("DIR.WITH_DOTS").

// Compat selects whose makefs(8) the writer follows where FreeBSD's
// current makefs and the Debian package (NetBSD's makefs of 2019) differ;
// it is fsopt.Compat, which every makefs format shares. CompatDebian
// gives the bytes of Debian's makefs (the list above).
type Compat = fsopt.Compat

// The values of Compat.
const (
	CompatFreeBSD = fsopt.CompatFreeBSD
	CompatDebian  = fsopt.CompatDebian
)

// Debian's Application Use field: a text at its start and one at its end.
const (
	debianAppUseHead = "[APPLICATION USE]--> ..."
	debianAppUseTail = "... <--[APPLICATION USE]"
)

// debianTFLen is the length of Debian's TF entries.
const debianTFLen = tfLen - 1

// debian reports whether the options ask for Debian's bytes.
func (o *Options) debian() bool { return o.Compat == CompatDebian }

// SourceTimes returns the time rule the source tree is read with under o,
// as fstree.Options takes it: Timestamp and ClampTimes, except that with
// compat=debian a Timestamp that replaces every time (-T) is dropped, so
// that the files keep their own times, as Debian's makefs keeps them for
// cd9660; a bound (ClampTimes, from SOURCE_DATE_EPOCH) still applies.
// WriteFile, Write and Build read their source with it; a caller that
// builds an fstree.Tree itself to give them (the makefs command line does)
// must build it with this rule too, since a time the tree has lost cannot
// be brought back.
func (o *Options) SourceTimes() (timestamp time.Time, clamp bool) {
	if o.debian() && !o.ClampTimes {
		return time.Time{}, false
	}
	return o.Timestamp, o.ClampTimes
}

// treeOptions is the time rule the source tree is read with (see
// SourceTimes).
func (o *Options) treeOptions() *fstree.Options {
	ts, clamp := o.SourceTimes()
	return &fstree.Options{Timestamp: ts, ClampTimes: clamp}
}

// putApplicationUse fills the Application Use field of the primary
// descriptor: zero, or Debian's texts.
func (o *Options) putApplicationUse(f []byte) {
	if o.debian() {
		copy(f, debianAppUseHead)
		copy(f[len(f)-len(debianAppUseTail):], debianAppUseTail)
	}
}

// debianSerials numbers the distinct files of t from 3 in the order
// Debian's makefs walks them: pre-order, each directory's entries in
// bytewise order, the root taking its number where its own "." entry
// sorts among its children (after "!App", before "a").
func debianSerials(t *fstree.Tree) map[*fstree.Node]uint32 {
	m := map[*fstree.Node]uint32{}
	next := uint32(3)
	assign := func(n *fstree.Node) {
		if n.HardLink == nil {
			m[n] = next
			next++
		}
	}
	var walk func(d *fstree.Node)
	walk = func(d *fstree.Node) {
		pending := d == t.Root
		for _, c := range d.Children {
			if pending && c.Name > "." {
				assign(d)
				pending = false
			}
			assign(c)
			if c.Type == fstree.TypeDir {
				walk(c)
			}
		}
		if pending {
			assign(d)
		}
	}
	walk(t.Root)
	return m
}

// debianEntries lists the entries of a "." or ".." record, or of another
// record whose name is its identifier, as Debian's makefs makes them; it
// reports false where FreeBSD's entries apply.
func (p *rrPass) debianEntries(n, parent, grand *isoNode) ([]suspEntry, bool) {
	switch {
	case n.kind == kindDot && n.parent == p.root && p.attrsFirst:
		return append(append([]suspEntry{spEntry()}, append(p.attrs(parent.src), nmEntries(".")...)...), erEntry()), true
	case n.kind == kindDot && n.parent == p.root:
		return append([]suspEntry{spEntry(), erEntry()}, append(p.attrs(parent.src), nmEntries(".")...)...), true
	case n.kind == kindDot:
		return []suspEntry{pxEntry(parent.src, p.serial(parent.src))}, true
	case n.kind == kindDotDot:
		var out []suspEntry
		if parent.realParent != nil {
			out = append(out, newEntry(sigPL, clLen))
		}
		if grand != nil {
			out = append(out, pxEntry(grand.src, p.serial(grand.src)))
		}
		return out, true
	}
	return nil, false
}

// nameIsIdentifier reports whether a record's name is its identifier, so
// that Debian's makefs writes no NM entry.
func (n *isoNode) nameIsIdentifier() bool {
	return n.orig == string(n.name[:n.nameLen])
}
