package mkimg

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkReproducible writes args, a command line without -y, with
// WriteFile and Build in each of two directories of inputs' files, and
// fails t unless the four disks are the same bytes; it returns the disk.
func checkReproducible(t *testing.T, args []string) []byte {
	t.Helper()
	var disks [][]byte
	for range 2 {
		dir := t.TempDir()
		inputs(t, dir)
		o := parseIn(t, dir, args)
		disks = append(disks, writeFileBytes(t, o), mustBuild(t, o))
	}
	for i, d := range disks[1:] {
		if !bytes.Equal(d, disks[0]) {
			t.Fatalf("%s in directory %d differs from WriteFile in directory 1", []string{"WriteFile", "Build"}[(i+1)%2], (i+1)/2+1)
		}
	}
	return disks[0]
}

// checkRefused checks that WriteFile refuses the command line line with
// one line wrapping is and saying want, and leaves nothing in the
// output's directory.
func checkRefused(t *testing.T, line string, is error, want string) {
	t.Helper()
	dir := t.TempDir()
	o, err := Parse(strings.Fields(line))
	if err != nil {
		t.Fatal(err)
	}
	err = WriteFile(filepath.Join(dir, "disk.img"), o)
	if !errors.Is(err, is) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Errorf("%s: got %v, want one line wrapping %v saying %q", line, err, is, want)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("%s: left behind: %v", line, left)
	}
}
