package catalog

// hostStat is what an input's key takes from the host's stat beyond
// fs.FileInfo: owner, link count, identity (for hard-link groups), device
// number and change time.
type hostStat struct {
	uid, gid        uint32
	nlink, dev, ino uint64
	rdev            uint64
	// ctime is the inode's change time in nanoseconds, 0 where unknown:
	// unlike the modification time, no one can set it back.
	ctime int64
}
