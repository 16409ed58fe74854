package ffs

import (
	"bytes"
	"fmt"
	"testing"
)

// MaskRandom zeroes, in the image img, the fields that FreeBSD's makefs
// fills from random() or with heap pointers, which the comparison with its
// Linux port (whose random() is glibc's) cannot expect to match:
// fs_id[1] and fs_ocsp..fs_active of every superblock copy and di_gen of
// every inode. It is exported for the tests of package ffs_test.
func MaskRandom(img []byte) error {
	f, err := NewReader(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		return err
	}
	g := &f.g
	var sb superblock
	offs := []int64{g.sblockloc}
	for c := int64(0); c < g.ncg; c++ {
		offs = append(offs, g.cgsblock(c)*g.fsize)
	}
	for _, off := range offs {
		s := (*superblock)(img[off:][:len(sb)])
		clear(s.fsID1())
		clear(s.fsPointers())
	}
	for ino := int64(0); ino < g.ncg*g.ipg; ino++ {
		d := img[g.inodeOff(ino):][:g.dinodeSize()]
		if g.version == 1 {
			clear((*dinode1)(d).diGen())
		} else {
			clear((*dinode2)(d).diGen())
		}
	}
	return nil
}

// clusterSums calls fn with cg_clustersum of every cylinder group of img
// (cg_clustersumoff to cg_clusteroff) and the sums its cluster map gives,
// as initcg and ffs_clusteracct keep them: sum[n] counts the runs of n
// free blocks, runs longer than fs_contigsumsize counted at it.
func clusterSums(img []byte, fn func(c int64, stored []byte, sums []int64) error) error {
	f, err := NewReader(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		return err
	}
	g, o := &f.g, f.o
	contigsumsize := int64(o.i32((*superblock)(img[g.sblockloc:][:sblockSize]).fsContigsumsize()))
	if contigsumsize <= 0 {
		return nil
	}
	for c := int64(0); c < g.ncg; c++ {
		cg := cylGroup(img[g.cgtod(c)*g.fsize:][:g.bsize])
		nblks := int64(o.u32(cg.cgNclusterblks()))
		sumoff, off, end := o.u32(cg.cgClustersumoff()), o.u32(cg.cgClusteroff()), o.u32(cg.cgNextfreeoff())
		if sumoff > off || off > end || int64(end) > g.bsize || int64(off-sumoff) != 4*(contigsumsize+1) {
			return fmt.Errorf("cylinder group %d: cluster offsets %d, %d, %d out of range", c, sumoff, off, end)
		}
		m := cg[off:end]
		sums := make([]int64, contigsumsize+1)
		run := int64(0)
		for i := int64(0); i <= nblks; i++ {
			if i < nblks && isset(m, i) {
				run++
				continue
			}
			if run > 0 {
				sums[min(run, contigsumsize)]++
			}
			run = 0
		}
		if err := fn(c, cg[sumoff:off], sums); err != nil {
			return err
		}
	}
	return nil
}

// CheckClusterSums reports a cylinder group of img whose cg_clustersum
// is not what its cluster map gives, in the image's byte order.
func CheckClusterSums(img []byte) error {
	var o order
	f, err := NewReader(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		return err
	}
	o = f.o
	return clusterSums(img, func(c int64, stored []byte, sums []int64) error {
		for i, want := range sums {
			if i == 0 {
				continue // cg_clustersum[0] is unused and overlaps the end of the free map
			}
			if got := int64(o.u32(stored[4*i:])); got != want {
				return fmt.Errorf("cylinder group %d: cg_clustersum[%d] is %d, its cluster map gives %d", c, i, got, want)
			}
		}
		return nil
	})
}

// MaskClusterSums zeroes cg_clustersum[1..] in every cylinder group of
// img ([0] is unused and overlaps the end of the free map).
func MaskClusterSums(img []byte) error {
	return clusterSums(img, func(_ int64, stored []byte, _ []int64) error {
		clear(stored[4:])
		return nil
	})
}

// ClampMaxbsize lowers fs_maxbsize in every superblock copy of img to
// FS_MAXCONTIG blocks where it is larger, as the writer writes it: FreeBSD's
// makefs compares the fs_maxbsize it has not yet set, not the extent asked
// for, with that limit, and so writes any extent. It reports whether it
// changed img.
func ClampMaxbsize(img []byte) (bool, error) {
	f, err := NewReader(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		return false, err
	}
	g, o := &f.g, f.o
	limit := fsMaxContg * g.bsize
	offs := []int64{g.sblockloc}
	for c := int64(0); c < g.ncg; c++ {
		offs = append(offs, g.cgsblock(c)*g.fsize)
	}
	changed := false
	for _, off := range offs {
		s := (*superblock)(img[off:][:sblockSize])
		if int64(o.i32(s.fsMaxbsize())) > limit {
			o.put32(s.fsMaxbsize(), limit)
			changed = true
		}
	}
	return changed, nil
}

// CompareDebian fails t where the image got differs from want, an image
// of Debian's makefs, outside the fields that makefs fills from random()
// or with heap pointers (maskedFields), as TestCompatDebianBytes
// compares. It is exported for the tests of package ffs_test.
func CompareDebian(t *testing.T, want, got []byte) {
	t.Helper()
	compareImages(t, want, got)
}

// ClearInodeFlags zeroes di_flags of inode ino in the image img. It is
// exported for the tests of package ffs_test, which compare images whose
// spec sets file flags with Debian's makefs, whose Linux build writes
// di_flags 0 whatever the spec says.
func ClearInodeFlags(img []byte, ino int64) error {
	f, err := NewReader(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		return err
	}
	g := &f.g
	if ino < 0 || ino >= g.ncg*g.ipg {
		return fmt.Errorf("inode %d out of range", ino)
	}
	d := img[g.inodeOff(ino):][:g.dinodeSize()]
	if g.version == 1 {
		clear((*dinode1)(d).diFlags())
	} else {
		clear((*dinode2)(d).diFlags())
	}
	return nil
}
