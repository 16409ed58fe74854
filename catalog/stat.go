package catalog

// hostStat is what an input's key takes from the host's stat beyond
// fs.FileInfo: owner, link count, identity (for hard-link groups) and
// device number.
type hostStat struct {
	uid, gid        uint32
	nlink, dev, ino uint64
	rdev            uint64
}
