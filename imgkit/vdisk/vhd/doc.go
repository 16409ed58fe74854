// Package vhd is Microsoft's Virtual Hard Disk (the specification of 2006):
// dynamic (vhd) and fixed (vhdf) disks, as FreeBSD's mkimg writes them;
// a differencing disk is not read.
//
// The package implements imgkit/vdisk's contract: Write lays the
// container out around a vdisk.Disk, Open reads the disk a container
// holds, with the fields of its records for describe and diff. Every
// offset and size Open reads is bounded by the file, and it is fuzzed.
// DETAILS.md says what is written, field by field, and where it departs
// from mkimg.
package vhd
