package mkimg

import "fmt"

// emptyEntry says, for the schemes whose entry for an empty partition (a
// 0-byte file or ::0) the independent tools reject or list apart, what
// this package writes instead and why; the warning of warnEmpty quotes
// it. FreeBSD's mkimg writes a GPT entry whose EndingLBA is one below its
// StartingLBA, which sgdisk -v and sfdisk --verify reject as a partition
// that ends before it starts, and an MBR record of SizeInLBA 0, which
// sfdisk and fdisk list as a partition of 0 sectors and mmls leaves out.
// A table cannot hold a partition of no sectors, and giving it one would
// move every later partition and the disk's end, so the entry is left
// unused: all the other bytes stay FreeBSD's. The other schemes' entries
// of no blocks (p_size, pmPartBlkCnt, nblk 0) are what their tools take
// as an unused entry, and are written as mkimg writes them.
var emptyEntry = map[string]string{
	"gpt": "its GPT entry is left unused, where FreeBSD's mkimg writes one with EndingLBA one below StartingLBA, which sgdisk -v and sfdisk --verify reject",
	"mbr": "its MBR record is left unused, where FreeBSD's mkimg writes one of SizeInLBA 0, which sfdisk and fdisk list and mmls leaves out",
}

// leftUnused reports whether p is an empty partition whose entry the
// scheme's write hook leaves unused (emptyEntry).
func (l *layout) leftUnused(p *placed) bool {
	return p.sectors == 0 && emptyEntry[l.scheme] != ""
}

// warnEmpty writes to l.warn one line for each partition whose entry is
// left unused, since the disk then differs from FreeBSD's mkimg's.
func (l *layout) warnEmpty() {
	if l.warn == nil {
		return
	}
	for i := range l.parts {
		if p := &l.parts[i]; l.leftUnused(p) {
			fmt.Fprintf(l.warn, "mkimg: warning: partition %d is empty: %s\n", p.index+1, emptyEntry[l.scheme])
		}
	}
}
