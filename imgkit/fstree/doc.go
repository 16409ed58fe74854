// Package fstree is the source-tree model that fixturegen's image writers
// lay out: a tree of nodes, each with a name, type, mode, owner, times,
// size, link target, device number, file flags, hard-link group and a
// source for its contents.
//
// A tree comes from a host directory (WalkDir, which never follows
// symbolic links below the directory), from an io/fs.FS (FromFS), from an
// mtree(5) specification merged into either (ApplySpec, as makefs -F
// does), or from a specification alone. The image writers take a Source:
// Dir(path) and FS(fsys) walk when the writer asks, with the writer's time
// rule, and a built *Tree is a Source itself.
//
//	t, err := fstree.WalkDir(dir, &fstree.Options{Metadata: fstree.MetadataGit})
//	...
//	err = ffs.WriteFile("out.img", t, &ffs.Options{Timestamp: time.Unix(0, 0)})
//
// # What to know
//
//   - Children are sorted bytewise by name, as makefs sorts them, so
//     nothing depends on readdir or map order.
//   - Options.Timestamp (makefs -T) replaces every time; with ClampTimes
//     (SOURCE_DATE_EPOCH, OptionsFromEnv) it only bounds them. Times are
//     UTC; a node a spec creates without a time gets Timestamp, else the
//     Unix epoch.
//   - Owners and modes come from the host unless Options.Metadata is
//     MetadataGit, which keeps only what a git checkout keeps; a spec's
//     keywords win either way.
//   - Hard links on the host form groups with one primary node; Rdev uses
//     the Linux encoding on every host (Major, Minor, Mkdev).
//   - A path is at most MaxPath (4095) bytes; deeper trees fail with
//     ErrPathTooLong.
//
// # More
//
// DETAILS.md in this package's folder is the reference: the time rule
// case by case, the git metadata rule, hard links, limits and what each
// platform's walk reads.
package fstree
