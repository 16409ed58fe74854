// Package qcow is QEMU's copy-on-write containers: version 1 (qcow) and 2 (qcow2), as
// FreeBSD's mkimg writes them, and versions 1 to 3 as qemu-img writes
// them, compressed clusters and extended L2 entries included, for reading.
//
// The package implements imgkit/vdisk's contract: Write lays the
// container out around a vdisk.Disk, Open reads the disk a container
// holds, with the fields of its records for describe and diff. Every
// offset and size Open reads is bounded by the file, and it is fuzzed.
// DETAILS.md says what is written, field by field, and where it departs
// from mkimg.
package qcow
