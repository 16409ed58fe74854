// Package cpio reads and writes cpio archives byte for byte as GNU cpio
// 2.13 writes them with -o: the newc and crc formats (the Linux kernel's
// initramfs) and odc, with --reproducible's inode numbering, hard-link
// sets, devices, FIFOs, symbolic links, the trailer and block padding.
//
// There are three ways in, each with an Example:
//
//   - WriteFile, Write and Build archive a whole tree (any fstree.Source)
//     as "find . | LC_ALL=C sort | cpio -o --reproducible" does in its
//     folder; PlanTree and NewPlan lay such an archive out (from a tree,
//     or from a name list as cpio reads it) for WriteTo or WriteAtTo.
//   - Writer streams an archive: AddFile takes the names of a list one by
//     one, as cpio -o does, and WriteHeader and Write write entries as
//     given, as archive/tar's Writer does.
//   - OpenReader reads an archive file and NewReader one in an
//     io.ReaderAt; the Reader is an io/fs.FS over the entries, and
//     Entries gives them in archive order with their headers.
//
// A whole tree is one call:
//
//	err := cpio.WriteFile("initrd.cpio", fstree.Dir("root"), nil) // newc, --reproducible
//
// # What to know
//
//   - The zero Options write what "cpio -o -H newc --reproducible" writes:
//     inodes numbered from 0 in list order, device numbers 0, 512-byte
//     blocks. HostInodes and HostDevices store the host's numbers as cpio
//     without --reproducible does (name lists only).
//   - In newc and crc a regular file with other links is written once
//     its last link is reached: the earlier links without data, most
//     recent first, then the last with the data. odc writes the data
//     with every link.
//   - A name that cannot be read is an error, where cpio warns and leaves
//     it out: an archive is all of its list or nothing.
//   - Readers check c_namesize and c_filesize against the file before
//     reading, read concatenated archives as the kernel does, and errors
//     wrap ErrFormat and name the byte offset.
//
// # More
//
// DETAILS.md in this package's folder is the reference: the layouts field
// by field, GNU cpio's rules that the writer follows and how archives are
// read.
package cpio
