package describe

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"strconv"
)

// A Field is one field of a structure in an image or archive, as a
// format's Fields function describes it.
type Field struct {
	// Path names the structure: "boot sector", "superblock", "cylinder
	// group 3", "symbol index", or the path of a file with a leading "/"
	// ("/DIR/A.TXT") or the name of an archive member ("b.o").
	Path string
	// Name is the field's name in the format's specification
	// ("BPB_SecPerClus", "fs_minfree", "ar member header date"), or a
	// description for what the specification does not name ("data",
	// "cluster chain", "long name").
	Name string
	// Offset and Size locate the field in the file; Offset is -1 for a
	// field spread over the file (a file's data, its cluster chain), whose
	// Spans then say where it lies.
	Offset, Size int64
	// Value is the field's value in words: numbers in decimal (and hex
	// where that reads better), names quoted, times in UTC, bytes as a
	// hash (Sum, DataValue).
	Value string
	// Spans lists the [offset, offset+length) ranges a spread field covers.
	Spans [][2]int64
}

// sumDigits is how many hex digits of a SHA-256 a field's value shows:
// enough to tell contents apart in a report, short enough to read.
const sumDigits = 16

// Sum returns the value of a field shown as a hash of its bytes b:
// "sha256:" and the first 16 hex digits of their SHA-256.
func Sum(b []byte) string {
	s := sha256.Sum256(b)
	return sumString(s[:])
}

// SumRange returns Sum of the n bytes of r at off, read in pieces. An
// error is the reader's, or io.ErrUnexpectedEOF when r ends before them;
// the caller says which field it was reading.
func SumRange(r io.ReaderAt, off, n int64) (string, error) {
	h := NewHash()
	if err := h.AddRange(r, off, n); err != nil {
		return "", err
	}
	return h.Sum(), nil
}

// DataValue returns the value of a "data" field, a file's or member's
// contents: its size and sum, "6 bytes, sha256:5891b5b522d5df08".
func DataValue(size int64, sum string) string {
	return strconv.FormatInt(size, 10) + " bytes, " + sum
}

// A Hash computes the Sum of bytes that are not in one piece: a file's
// clusters or blocks, a run of unused inodes. The zero Hash is not ready
// for use; NewHash returns one.
type Hash struct{ h hash.Hash }

// NewHash returns an empty Hash.
func NewHash() *Hash { return &Hash{h: sha256.New()} }

// Write adds p to the hashed bytes. It never fails.
func (h *Hash) Write(p []byte) (int, error) { return h.h.Write(p) }

// AddRange adds the n bytes of r at off. An error is the reader's, or
// io.ErrUnexpectedEOF when r ends before them.
func (h *Hash) AddRange(r io.ReaderAt, off, n int64) error {
	m, err := io.Copy(h.h, io.NewSectionReader(r, off, n))
	if err == nil && m < n {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// Sum returns the value of the bytes added so far, as the function Sum
// gives it: "sha256:" and 16 hex digits.
func (h *Hash) Sum() string {
	var s [sha256.Size]byte
	return sumString(h.h.Sum(s[:0]))
}

func sumString(s []byte) string {
	return "sha256:" + hex.EncodeToString(s[:sumDigits/2])
}
