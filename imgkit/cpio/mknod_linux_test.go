package cpio

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestExtractSpecial checks that Extract makes a FIFO and, as root, a
// character device with its numbers and permission bits, as cpio -i does.
func TestExtractSpecial(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := NewWriter(&buf, nil)
	for _, h := range []Header{
		{Name: "p", Mode: ModeFIFO | 0o640, Nlink: 1},
		{Name: "tty", Mode: ModeChar | 0o620, Nlink: 1, RdevMajor: 4, RdevMinor: 1},
	} {
		if err := w.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var skipped []string
	if err := rd.Extract(dir, func(name string, skip bool) {
		if skip {
			skipped = append(skipped, name)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "p")); err != nil || fi.Mode()&os.ModeNamedPipe == 0 || fi.Mode().Perm() != 0o640 {
		t.Errorf("p: %v, %v; want a FIFO, mode 0640", fi, err)
	}
	var st unix.Stat_t
	err = unix.Lstat(filepath.Join(dir, "tty"), &st)
	switch {
	case os.Geteuid() != 0:
		if len(skipped) != 1 || skipped[0] != "tty" {
			t.Errorf("not root: skipped %q, want tty", skipped)
		}
	case err != nil || st.Mode&unix.S_IFMT != unix.S_IFCHR || unix.Major(st.Rdev) != 4 || unix.Minor(st.Rdev) != 1 || st.Mode&0o777 != 0o620:
		t.Errorf("tty: %v, mode %o, rdev %d,%d; want a character device 4,1, mode 0620", err, st.Mode, unix.Major(st.Rdev), unix.Minor(st.Rdev))
	}
}
