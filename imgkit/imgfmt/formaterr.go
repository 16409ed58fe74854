package imgfmt

import (
	"errors"
	"fmt"
)

// A FormatError is a structure that a format's reader refuses as
// malformed, with its place: which format, at which byte, which field.
// Every reader of this module returns one for what it refuses in an
// image (msdos, ffs, cd9660, ar, mkimg's schemes and containers), so
// that errors.Is(err, msdos.ErrFormat) holds as before and errors.As
// gives the place to a program, to fixturegen diff and to the fuzz
// tests, as debug/elf's FormatError does.
//
// Off counts bytes of the image the format's reader was handed (its
// io.ReaderAt). A reader of a disk moves the errors of a partition's
// file system to the disk (MoveFormatError adds the partition's start),
// so that an error from mkimg.Disk.PartitionFS names a byte of the disk.
// Inside a container (qcow2, vhd, vhdx, vmdk) the bytes of the disk it
// holds lie in no one order in the file, so Off counts bytes of that
// disk and In names it.
type FormatError struct {
	Format string // the format's name: "msdos", "gpt", "qcow2"
	Off    int64  // the byte the error is at, -1 when it has no one place
	// Field is the on-disk field's name as the format's specification
	// spells it (BPB_RsvdSecCnt, fs_cgsize, HeaderCRC32, cluster_bits),
	// "" when the error is about no one field.
	Field string
	// Msg says what is wrong, as people read it, with the place in the
	// format's own words (a byte, a sector, an LBA, a descriptor line).
	Msg string
	// Err is the format's sentinel, which Unwrap returns: its ErrFormat,
	// or a narrower one the format has (ar.ErrHeader, mkimg.ErrVHD).
	// It is nil for a container's error, which the disk reader wraps in
	// mkimg.ErrFormat with the container's name.
	Err error
	// In names the image Off counts bytes of when it is not the file
	// read ("the qcow2 container's disk"); "" for the file.
	In string
}

// Error returns the sentinel's text and Msg: "msdos: malformed image:
// BPB_RsvdSecCnt at byte 0xe is 0".
func (e *FormatError) Error() string {
	if e.Err == nil {
		return e.Msg
	}
	return e.Err.Error() + ": " + e.Msg
}

// Unwrap returns the format's sentinel.
func (e *FormatError) Unwrap() error { return e.Err }

// Where says the place without the message, for a line that shows it on
// its own: "BPB_RsvdSecCnt at byte 0xe", "byte 0x200 of the qcow2
// container's disk", "fs_cgsize", or "" when the error has no place.
func (e *FormatError) Where() string {
	s := e.Field
	if e.Off >= 0 {
		at := fmt.Sprintf("byte %#x", e.Off)
		if e.In != "" {
			at += " of " + e.In
		}
		if s == "" {
			s = at
		} else {
			s += " at " + at
		}
	}
	return s
}

// MoveFormatError returns err with the place of the FormatError it
// wraps moved by base bytes (the start of the partition whose contents
// made err) and, when in is not "", counted in the image in names. The
// message stays as its reader wrote it; errors.As finds the moved
// FormatError before the one err wraps. An err that wraps no
// FormatError is returned as it is.
func MoveFormatError(err error, base int64, in string) error {
	var fe *FormatError
	if !errors.As(err, &fe) {
		return err
	}
	moved := *fe
	if moved.Off >= 0 {
		moved.Off += base
	}
	if in != "" {
		moved.In = in
	}
	return &movedError{err: err, fe: &moved}
}

// movedError is an error whose FormatError was moved to an outer image.
type movedError struct {
	err error
	fe  *FormatError
}

func (m *movedError) Error() string { return m.err.Error() }
func (m *movedError) Unwrap() error { return m.err }

// As gives the moved FormatError to errors.As.
func (m *movedError) As(target any) bool {
	if p, ok := target.(**FormatError); ok {
		*p = m.fe
		return true
	}
	return false
}
