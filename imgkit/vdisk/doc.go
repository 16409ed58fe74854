// Package vdisk is the contract between a disk and its container format
// (a virtual disk file such as qcow2, VHD, VHDX or VMDK): a Format lays
// a container out around a finished raw Disk and opens one again as a
// Reader of the virtual disk it holds. mkimg writes every container
// through it, from the Params of the disk it lays out; a Go program that
// only reads a container uses a Format's Open.
//
// Each format is a package of its own: imgkit/vdisk/qcow,
// imgkit/vdisk/vhd, imgkit/vdisk/vhdx and imgkit/vdisk/vmdk. A new
// format is one more such package and one line in mkimg's list
// (imgkit/mkimg/containers.go).
package vdisk
