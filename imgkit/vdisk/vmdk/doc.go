// Package vmdk is VMware's Virtual Disk Format 1.1: the hosted sparse extent
// (vmdk, Format) and the stream-optimized one (vmdks, StreamOptimized),
// as FreeBSD's mkimg writes them, and for reading a descriptor file with
// its FLAT, SPARSE and ZERO extents (Descriptor).
//
// The package implements imgkit/vdisk's contract: Write lays the
// container out around a vdisk.Disk, Open reads the disk a container
// holds, with the fields of its records for describe and diff. Every
// offset and size Open reads is bounded by the file, and it is fuzzed.
// DETAILS.md says what is written, field by field, and where it departs
// from mkimg.
package vmdk
