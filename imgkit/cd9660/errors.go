package cd9660

import "errors"

// Errors of the writer and the reader. Errors returned wrap one of these
// where one applies, so callers can test them with errors.Is.
var (
	// ErrOption is a bad -o option: an unknown key or a value the key
	// does not take.
	ErrOption = errors.New("cd9660: bad option")
	// ErrParams is a combination of Options the writer cannot make a
	// volume from.
	ErrParams = errors.New("cd9660: impossible parameters")
	// ErrDeepTree is a directory deeper than ISO 9660 allows, without
	// Options.AllowDeepTrees or Options.RockRidge.
	ErrDeepTree = errors.New("cd9660: directory tree too deep")
	// ErrFileTooBig is a file of 4 GiB or more, which one extent cannot
	// hold, below Options.ISOLevel 3.
	ErrFileTooBig = errors.New("cd9660: file too large")

	// ErrFormat reports a malformed ISO 9660 image.
	ErrFormat = errors.New("cd9660: malformed image")
	// ErrUnsupported reports a well-formed structure the reader does not
	// handle: a Rock Ridge sparse file (SF), or a zisofs2 file compressed
	// with another algorithm than zlib.
	ErrUnsupported = errors.New("cd9660: unsupported")
	// ErrNoBootRecord reports an image without an El Torito boot record.
	ErrNoBootRecord = errors.New("cd9660: no El Torito boot record")
)
