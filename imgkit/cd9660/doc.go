// Package cd9660 writes and reads ISO 9660 (ECMA-119) images as FreeBSD's
// makefs(8) -t cd9660 writes them, with Rock Ridge (IEEE P1282), El Torito
// boot catalogues and, beyond makefs, a Joliet supplementary volume.
//
// The records of the format live in format.go, one byte-array type per
// record with one accessor per field named as ECMA-119, El Torito and
// SUSP/RRIP name them.
package cd9660
