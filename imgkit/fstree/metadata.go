package fstree

import "strconv"

// Metadata says where the owners, permissions, file flags and hard links
// of a tree read from a host directory or an fs.FS come from: the host
// (MetadataHost, the zero value, as makefs(8) reads them) or only what git
// keeps of a checkout (MetadataGit). Times are not part of it: they follow
// Options.Timestamp (see Times in DETAILS.md).
type Metadata uint8

const (
	// MetadataHost keeps every node's owner, group, permission bits and
	// hard-link group as the host (or the fs.FS) reports them.
	MetadataHost Metadata = iota
	// MetadataGit keeps only what git keeps, as tar --owner=0 --group=0
	// --numeric-owner, mksquashfs -all-root and mkisofs -r do, so that
	// the tree is the same in every checkout whatever its owner, umask
	// or hard links: every node gets uid 0 and gid 0, no user or group
	// name and no file flags; a regular file gets mode 0755 when any of
	// its execute bits is set and 0644 otherwise; a directory 0755; a
	// symbolic link 0777, the mode Linux gives every link (its target is
	// kept); a device, FIFO or socket 0644. No two paths form a hard-link
	// group: each is its own file, as a git checkout has it.
	MetadataGit
)

// String returns the word of the makefs --metadata option for m: "host"
// or "git".
func (m Metadata) String() string {
	switch m {
	case MetadataHost:
		return "host"
	case MetadataGit:
		return "git"
	}
	return "Metadata(" + strconv.FormatUint(uint64(m), 10) + ")"
}

// metadata applies the Metadata rule of o to the nodes of t, a tree just
// read from a host directory or an fs.FS, before its hard-link groups are
// computed. With MetadataHost (or a nil o) it changes nothing.
func (o *Options) metadata(t *Tree) {
	if o == nil || o.Metadata != MetadataGit {
		return
	}
	t.eachNode(gitMetadata)
}

// gitMetadata gives n the owner, mode and flags of MetadataGit and takes it
// out of any hard-link group.
func gitMetadata(n *Node) {
	n.UID, n.GID = 0, 0
	n.Uname, n.Gname = "", ""
	n.Flags = 0
	switch n.Type {
	case TypeFile:
		if n.Mode&0o111 != 0 {
			n.Mode = 0o755
		} else {
			n.Mode = 0o644
		}
	case TypeDir:
		n.Mode = 0o755
	case TypeSymlink:
		n.Mode = 0o777
	default:
		n.Mode = 0o644
	}
	n.dev, n.ino, n.hostNlink = 0, 0, 0
}
