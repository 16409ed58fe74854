package ext

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// idDomain starts the text the UUID and hash seed rule hashes, so that
// its ids cannot collide with another use of SHA-256 over the same bytes.
const idDomain = "fixturegen ext id v1\n"

// idSeed hashes what the image's bytes depend on besides its UUID and
// hash seed: the options and the tree as the writer copies it, each
// regular file by the SHA-256 of its contents (sums, which file computes
// while it looks for blocks of zeros). See DETAILS.md "UUID and hash
// seed".
func (w *writer) idSeed(t *fstree.Tree, sums map[*fstree.Node]*[sha256.Size]byte) [sha256.Size]byte {
	o := &w.o
	h := sha256.New()
	typ := o.Type
	if typ == "" {
		typ = "ext2"
	}
	reserved := 5.0
	if o.ReservedPercent != nil {
		reserved = *o.ReservedPercent
	}
	fmt.Fprint(h, idDomain)
	fmt.Fprintf(h, "type %s size %d blocksize %d inodesize %d inoderatio %d reserved %g\n",
		typ, o.Size, w.g.bs, w.g.inodeSize, o.InodeRatio, reserved)
	fmt.Fprintf(h, "label %q time %d\n", o.Label, w.f.now)
	if o.NumBackupSB != nil {
		fmt.Fprintf(h, "numbackupsb %d\n", *o.NumBackupSB)
	}
	if o.PackedMetaBlocks {
		fmt.Fprint(h, "packedmetablocks\n")
	}
	if len(o.Features) > 0 {
		fmt.Fprintf(h, "features %q\n", strings.Join(o.Features, ","))
	}
	if o.QuotaTypes != nil {
		fmt.Fprintf(h, "quotatypes %q\n", strings.Join(o.QuotaTypes, ":"))
	}
	if w.g.cbits != 0 {
		fmt.Fprintf(h, "clustersize %d\n", w.g.bs<<w.g.cbits)
	}
	if more := (Options{LastMounted: o.LastMounted, InodeCount: o.InodeCount, BlocksPerGroup: o.BlocksPerGroup,
		FlexGroups: o.FlexGroups, JournalMiB: o.JournalMiB, RootUID: o.RootUID, RootGID: o.RootGID,
		Stride: o.Stride, StripeWidth: o.StripeWidth, ZeroedInodeTables: o.ZeroedInodeTables, Errors: o.Errors}); !reflect.DeepEqual(more, Options{}) {
		fmt.Fprintf(h, "lastmounted %q inodes %d blockspergroup %d flexgroups %d journalmib %d root %d:%d stride %d stripewidth %d zeroedtables %t errors %d\n",
			o.LastMounted, o.InodeCount, o.BlocksPerGroup, o.FlexGroups, o.JournalMiB, o.RootUID, o.RootGID,
			o.Stride, o.StripeWidth, o.ZeroedInodeTables, o.Errors)
	}
	t.Walk(func(p string, n *fstree.Node) error {
		link := "-"
		if n.HardLink != nil {
			link = n.HardLink.Path()
		}
		sum := "-"
		if s, ok := sums[n]; ok {
			sum = hex.EncodeToString(s[:])
		}
		fmt.Fprintf(h, "%s %q %o %d %d %d %d %d %d %d %q %q %s\n", n.Type, p, n.Mode, n.UID, n.GID, n.Size,
			clampTime(n.Atime), clampTime(n.Mtime), clampTime(n.Ctime), n.Rdev, n.Link, link, sum)
		if !o.NoCopyXattrs && n.HardLink == nil {
			for _, x := range n.Xattrs {
				fmt.Fprintf(h, "xattr %q %x\n", x.Name, x.Value)
			}
		}
		return nil
	})
	return [sha256.Size]byte(h.Sum(nil))
}

// derivedID is the version 4 UUID of the rule for role ("uuid" or
// "hash_seed"): the first 16 bytes of SHA-256(idDomain, seed, role) with
// the version nibble set to 4 and the variant bits to 10.
func derivedID(seed [sha256.Size]byte, role string) [16]byte {
	h := sha256.New()
	fmt.Fprint(h, idDomain)
	h.Write(seed[:])
	fmt.Fprintf(h, "%s\n", role)
	var id [16]byte
	copy(id[:], h.Sum(nil))
	id[6] = id[6]&0x0f | 0x40
	id[8] = id[8]&0x3f | 0x80
	return id
}
