// Package fstree is the source-tree model that fixturegen's image writers
// lay out: a tree of nodes, each with a name, type, mode, owner, times,
// size, link target, device number, file flags, hard-link group and a
// source for its contents.
//
// A tree comes from a host directory (WalkDir, which uses lstat and never
// follows symbolic links below the directory), from an io/fs.FS (FromFS),
// from an mtree(5) specification merged into either (ApplySpec, as makefs
// -F does), or from a specification alone (ApplySpec with a nil tree).
//
// The image writers take a Source: Dir(path) and FS(fsys) walk when the
// writer asks, with the writer's time rule, and a *Tree built by any of the
// above is a Source itself.
//
// # Order
//
// The children of every directory are sorted bytewise by name, as FreeBSD
// makefs(8) sorts them, and Tree.Walk visits nodes depth-first and
// pre-order. Nothing depends on readdir order or map iteration order.
//
// # Times
//
// Times follow one rule, applied after the tree is built and after a spec
// is merged:
//
//   - If Options.Timestamp is set (makefs -T: an epoch, or a file whose
//     modification time is used; see ParseTimestamp), it replaces every
//     time of every node: atime, mtime, ctime and birth time.
//   - If Options.ClampTimes is set too (OptionsFromEnv sets both from
//     $SOURCE_DATE_EPOCH), every time later than Timestamp becomes it;
//     earlier times are kept, and an unknown birth time stays unknown (zero).
//   - Otherwise every time is the file's own (or the spec's).
//
// All times are in UTC. An mtree time keyword sets a node's atime, mtime,
// ctime and birth time. A node that a spec creates without a time keyword
// gets Options.Timestamp, else the Unix epoch (0): makefs would use the
// time it was started, which is not reproducible.
//
// # Owners and permissions
//
// WalkDir and FromFS take owners, groups and permission bits from the host
// (or the fs.FS), as makefs(8) does, unless Options.Metadata is
// MetadataGit: then the tree holds only what a git checkout keeps, the
// same for every owner and umask (uid and gid 0, files 0644 or, with an
// execute bit, 0755, directories 0755, links 0777, no flags and no hard
// links). The rule applies to the walked tree before a spec is merged, so
// a spec's uid, gid, mode and flags keywords still win; a tree built from
// a spec alone is taken as the spec says. An image writer passes only its
// time options to a Source, so a Go user who wants the git rule walks with
// it and hands the writer the tree:
//
//	t, err := fstree.WalkDir(dir, &fstree.Options{Metadata: fstree.MetadataGit})
//	...
//	err = ffs.WriteFile("out.img", t, &ffs.Options{Timestamp: time.Unix(0, 0)})
//
// # Hard links
//
// Non-directories that share a device and inode number on the host form a
// hard-link group. The first node of a group in walk order is its primary;
// the others have HardLink pointing to it, and every member's Nlink is the
// number of names the group has inside the tree (links from outside the
// tree do not count). A directory's Nlink is 2 plus its subdirectories.
// Writers store one inode per group, with the primary's metadata.
//
// # Device numbers
//
// Node.Rdev uses the Linux (glibc) encoding on every host, so trees are the
// same everywhere; Major, Minor and Mkdev convert.
//
// # Limits
//
// A path in a tree is at most MaxPath (4095) bytes long, Linux's PATH_MAX
// less its NUL, so a tree is at most 2048 directories deep. WalkDir, FromFS
// and ReadSpec stop at the first entry beyond it, and the imgkit writers
// check trees from any Source with Tree.CheckPaths, with an error wrapping
// ErrPathTooLong. The limit keeps the walks and the writers linear in time
// and memory: a walk that hands each node its path would otherwise hold
// paths quadratic in the depth.
//
// # Platforms
//
// On Linux, WalkDir reads metadata with statx(2) and records birth times
// where the file system has them; on Darwin and FreeBSD it uses the birth
// time of stat(2). Elsewhere among Unix systems only the modification time
// is read. On Windows (and other non-Unix systems) uid and gid are 0, the
// mode is the permission bits Go reports, and there are no hard-link groups.
package fstree
