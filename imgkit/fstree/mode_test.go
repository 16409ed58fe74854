package fstree

import (
	"io/fs"
	"testing"
)

// TestFileMode pins the mapping from Unix st_mode values, through
// TypeOfUnixMode and FileMode, to io/fs modes, which the FFS reader uses
// for di_mode.
func TestFileMode(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		unix uint32
		typ  Type
		want fs.FileMode
	}{
		{0o100644, TypeFile, 0o644},
		{0o104755, TypeFile, fs.ModeSetuid | 0o755},
		{0o042775, TypeDir, fs.ModeDir | fs.ModeSetgid | 0o775},
		{0o041777, TypeDir, fs.ModeDir | fs.ModeSticky | 0o777},
		{0o120777, TypeSymlink, fs.ModeSymlink | 0o777},
		{0o010600, TypeFIFO, fs.ModeNamedPipe | 0o600},
		{0o140755, TypeSocket, fs.ModeSocket | 0o755},
		{0o020620, TypeChar, fs.ModeDevice | fs.ModeCharDevice | 0o620},
		{0o060660, TypeBlock, fs.ModeDevice | 0o660},
		{0o170644, 0, fs.ModeIrregular | 0o644},
	} {
		typ := TypeOfUnixMode(c.unix)
		if typ != c.typ {
			t.Errorf("TypeOfUnixMode(%#o) = %v, want %v", c.unix, typ, c.typ)
		}
		if got := FileMode(typ, c.unix); got != c.want {
			t.Errorf("FileMode(%v, %#o) = %v, want %v", typ, c.unix, got, c.want)
		}
	}
}
