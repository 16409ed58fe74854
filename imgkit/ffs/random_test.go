package ffs

import (
	"bytes"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// TestBSDRandom checks the generator against FreeBSD's random(3): the
// first values after srandom(seed), as FreeBSD 12 and later produce them
// (shared/reference/freebsd-random-vectors.txt).
func TestBSDRandom(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		seed uint32
		want []int64
	}{
		{0, []int64{1707946985, 746347077, 1574854081, 1599724458, 1837615988, 296931081, 582849079, 1506274759,
			444798817, 1026250178, 853819298, 1169654098, 588584600, 897817360, 1829320972, 1735337709, 1120688717,
			1283348716, 27375729, 1011457912, 1875970896, 191833606, 2093479934, 1361365957, 2090999375, 444635382,
			1990085051, 1912927597, 1648030498, 2095842200, 543620893, 1208493835, 694705630, 2118474974, 660734645,
			384837970, 267922408, 1243583724, 1891112729, 712721225}},
		{1, []int64{1408992891, 1638182910, 83848093, 145962118, 627851256, 778849244, 1365784557, 2146557192}},
		{1600000000, []int64{631394960, 946232508, 52614677, 852588996, 373562598, 2087621060, 800787251, 853708545}},
		{1700000000, []int64{2032145931, 346532193, 1690784653, 325920987, 138187775, 105549497, 466403676, 1271298437}},
		{1704067200, []int64{872857443, 1582018668, 2012077602, 2117765709, 1320106927, 1304649836, 2001875569, 766144763,
			1691827147, 215826430, 56111841, 704013544, 1986385943, 2106378851, 300387672, 1761654423, 1145045812,
			1757523057, 1073658092, 151652479, 376309646, 1628336618, 1753356138, 1490314439, 1524015826, 1014262735,
			1109861417, 1964660731, 1233192039, 1019184504, 568880657, 2106049482, 453719525, 433474611, 2076331543,
			1773826452, 1738124447, 1930723464, 392487568, 1282467947}},
	} {
		g := newBSDRandom(c.seed)
		for i, want := range c.want {
			if got := g.next(); got != want {
				t.Fatalf("srandom(%d): value %d is %d, want %d", c.seed, i, got, want)
			}
		}
	}
}

// TestRandomFields checks that fs_id[1] and the di_gen of spare inodes
// are FreeBSD's random() values after srandom(the time stamp), drawn in
// the order of FreeBSD's mkfs: fs_id[1] first, then the inodes each group
// initialises (for UFS2 the first ones; for UFS1 from the third inode
// block on, the first two blocks of the first group holding zeros).
func TestRandomFields(t *testing.T) {
	t.Parallel()
	// The first three values after srandom(1600000000).
	const id1, gen1, gen2 = 631394960, 946232508, 52614677
	src := fstree.FS(mapTree())
	for _, c := range []struct {
		version      int
		ino1, ino2   int64 // inodes that get gen1 and gen2
		zero         int64 // a spare inode with di_gen 0, or -1
		bsize, fsize int
	}{
		{2, 0, 1, -1, 32768, 4096},
		{1, 2 * 32768 / dinode1Size, 2*32768/dinode1Size + 1, 200, 32768, 4096},
		{1, 2 * 4096 / dinode1Size, 2*4096/dinode1Size + 1, 40, 4096, 512},
	} {
		img, err := Build(src, &Options{Version: c.version, BSize: c.bsize, FSize: c.fsize, Size: 16 << 20, Timestamp: time.Unix(1600000000, 0)})
		if err != nil {
			t.Fatal(err)
		}
		f, err := NewReader(bytes.NewReader(img), int64(len(img)))
		if err != nil {
			t.Fatal(err)
		}
		g := &f.g
		if got := f.o.u32((*superblock)(img[g.sblockloc:][:sblockSize]).fsID1()); got != id1 {
			t.Errorf("UFS%d: fs_id[1] %d, want %d", c.version, got, id1)
		}
		gen := func(ino int64) uint32 {
			d := img[g.inodeOff(ino):][:g.dinodeSize()]
			if g.version == 1 {
				return f.o.u32((*dinode1)(d).diGen())
			}
			return f.o.u32((*dinode2)(d).diGen())
		}
		if got := gen(c.ino1); got != gen1 {
			t.Errorf("UFS%d bsize %d: di_gen of inode %d is %d, want %d", c.version, c.bsize, c.ino1, got, gen1)
		}
		if got := gen(c.ino2); got != gen2 {
			t.Errorf("UFS%d bsize %d: di_gen of inode %d is %d, want %d", c.version, c.bsize, c.ino2, got, gen2)
		}
		if c.zero >= 0 && gen(c.zero) != 0 {
			t.Errorf("UFS%d bsize %d: di_gen of inode %d is %d, want 0", c.version, c.bsize, c.zero, gen(c.zero))
		}
	}
}
