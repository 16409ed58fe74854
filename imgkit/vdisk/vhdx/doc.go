// Package vhdx is Microsoft's VHDX container ([MS-VHDX] 1.00), as FreeBSD's
// mkimg writes it and as Hyper-V and qemu-img write it for reading; a
// differencing disk or one with a log to replay is not read.
//
// The package implements imgkit/vdisk's contract: Write lays the
// container out around a vdisk.Disk, Open reads the disk a container
// holds, with the fields of its records for describe and diff. Every
// offset and size Open reads is bounded by the file, and it is fuzzed.
// DETAILS.md says what is written, field by field, and where it departs
// from mkimg.
package vhdx
