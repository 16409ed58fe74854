//go:build unix

package mkimg

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// vhdLinkFiles writes the partition files of TestVHDLinked into dir: z,
// 9 MiB whose MiBs 2 to 7 are zeros (a hole from 3 MiB on, stored zeros
// before), so that a dynamic VHD leaves a block of it out, and s, a
// sparse 6 MiB file with one byte of data in its last MiB.
func vhdLinkFiles(t *testing.T, dir string) {
	t.Helper()
	z, err := os.Create(filepath.Join(dir, "z"))
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 2<<20)
	for i := range data {
		data[i] = byte(i*13 + 1)
	}
	for _, w := range []struct {
		b   []byte
		off int64
	}{{data, 0}, {make([]byte, 1<<20), 2 << 20}, {data[:2<<20], 7 << 20}} {
		if _, err := z.WriteAt(w.b, w.off); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := os.Create(filepath.Join(dir, "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Truncate(6 << 20); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WriteAt([]byte{7}, 5<<20+123); err != nil {
		t.Fatal(err)
	}
}

// TestVHDLinked checks that vhd, vhdf and vhdx read the partitions of
// WriteFile's raw disk from their own files (the raw disk's temporary
// file holds only the metadata, so the data is copied once) and still
// write freebsd-mkimg -y's bytes, WriteFile's as Build's, for partitions
// with stored zeros, holes and a partial last VHD block (with -short one
// line in three).
func TestVHDLinked(t *testing.T) {
	t.Parallel()
	ref := tooltest.Need(t, "freebsd-mkimg")
	for i, f := range vhdFormats {
		for j, line := range []string{
			"-s gpt -p freebsd-ufs:=z -p freebsd-swap:=s",
			"-s mbr -H 16 -T 63 -p freebsd:=s -p freebsd:=z",
			"-s gpt -S 4096 -P 4096 -p freebsd-ufs:=z -p efi::1m -p freebsd-ufs:=s",
		} {
			if !tooltest.ShortSample(i*3+j, 3) {
				continue
			}
			line := "-f " + f + " " + line
			t.Run(line, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				vhdLinkFiles(t, dir)
				checkFreeBSDIdentity(t, ref, dir, line)
				checkRawDiskLinked(t, dir, line, 2)
			})
		}
	}
}

// checkRawDiskLinked checks that the raw disk WriteFile makes for line
// links want partition files and that its temporary file stores less
// than 1 MiB: the metadata, not the partitions.
func checkRawDiskLinked(t *testing.T, dir, line string, want int) {
	t.Helper()
	l, err := planIn(parseIn(t, dir, strings.Fields(line)), spoolPlace{dir: dir}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	cache := *diskCache
	_, done, err := l.buildRaw(false, spoolPlace{dir: dir}, &cache)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	if l.linked != want {
		t.Fatalf("the raw disk links %d partition files, want %d", l.linked, want)
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(int(l.rawFile.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	if st.Blocks*512 >= 1<<20 {
		t.Errorf("the raw disk's temporary file stores %d bytes, want the metadata only", st.Blocks*512)
	}
}
