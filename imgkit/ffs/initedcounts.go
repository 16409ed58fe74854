package ffs

// initedCounts is how many inodes of each group are initialised: fs_ipg
// for UFS1, cg_initediblk for UFS2. Every group starts with the same
// count; only the groups whose count grew as inodes were stored in them
// (initInodeBlocks) take memory.
type initedCounts struct {
	first int64
	more  map[int64]int64
}

// get returns the count of group c.
func (n *initedCounts) get(c int64) int64 {
	if v, ok := n.more[c]; ok {
		return v
	}
	return n.first
}

// set makes v the count of group c.
func (n *initedCounts) set(c, v int64) {
	if v == n.get(c) {
		return
	}
	if n.more == nil {
		n.more = map[int64]int64{}
	}
	n.more[c] = v
}
