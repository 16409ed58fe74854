package mkimg

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// extent is one line of filefrag -v: a run of file-system blocks.
type extent struct {
	logical, physical, length int64
	shared                    bool
}

// extentsOf lists the extents of path as filefrag -v gives them.
func extentsOf(t *testing.T, filefrag, path string) []extent {
	t.Helper()
	out, err := exec.Command(filefrag, "-v", path).CombinedOutput()
	if err != nil {
		t.Fatalf("filefrag -v %s: %v: %s", path, err, out)
	}
	var exts []extent
	for _, line := range strings.Split(string(out), "\n") {
		// "   0:        0..    2047:      24576..     26623:   2048:             shared,last,eof"
		f := strings.Split(line, ":")
		if len(f) < 4 {
			continue
		}
		if _, err := strconv.Atoi(strings.TrimSpace(f[0])); err != nil {
			continue
		}
		lo, _, _ := strings.Cut(f[1], "..")
		plo, _, _ := strings.Cut(f[2], "..")
		l, err1 := strconv.ParseInt(strings.TrimSpace(lo), 10, 64)
		p, err2 := strconv.ParseInt(strings.TrimSpace(plo), 10, 64)
		n, err3 := strconv.ParseInt(strings.TrimSpace(f[3]), 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatalf("filefrag -v %s: cannot read %q", path, line)
		}
		exts = append(exts, extent{l, p, n, strings.Contains(line, "shared")})
	}
	return exts
}

// sharedBlocks counts the blocks of the disk's extents that are shared
// and lie on the partition file's physical blocks.
func sharedBlocks(disk, part []extent) int64 {
	var n int64
	for _, d := range disk {
		if !d.shared {
			continue
		}
		for _, p := range part {
			lo, hi := max(d.physical, p.physical), min(d.physical+d.length, p.physical+p.length)
			if lo < hi {
				n += hi - lo
			}
		}
	}
	return n
}

// TestFileSourceSharesExtents writes GPT disks with a partition file on
// XFS and btrfs loop mounts, with -P 4096 so that the partition starts on
// a file-system block, and requires that the disk's blocks of the
// partition are the partition file's own (filefrag -v: shared, on the
// file's physical blocks), with derived GUIDs and with -y, and that the
// bytes are those of the disk built in memory (the copy path). A disk
// whose partition starts off the block boundary (the default -P 512)
// cannot share and must still have the same partition bytes.
func TestFileSourceSharesExtents(t *testing.T) {
	t.Parallel()
	filefrag := tooltest.Need(t, "filefrag")
	for _, fstype := range []string{"xfs", "btrfs"} {
		t.Run(fstype, func(t *testing.T) {
			t.Parallel()
			mnt := tooltest.LoopMount(t, fstype)
			const size = 8 << 20
			part := filepath.Join(mnt, "part.img")
			data := randomFile(t, part, size, 7)
			for _, args := range [][]string{{"-P", "4096"}, {"-P", "4096", "-y"}, {"-y"}} {
				o, err := Parse(append([]string{"-s", "gpt", "-p", "freebsd-ufs:=" + part, "-p", "freebsd-swap::1m"}, args...))
				if err != nil {
					t.Fatal(err)
				}
				want, err := Build(o)
				if err != nil {
					t.Fatal(err)
				}
				disk := filepath.Join(mnt, "disk.img")
				if err := WriteFile(disk, o); err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(disk)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%v: the disk differs from the one built in memory", args)
				}
				l, err := plan(o)
				if err != nil {
					t.Fatal(err)
				}
				start := int64(l.parts[0].start * l.secsz)
				if !bytes.Equal(got[start:start+size], data) {
					t.Errorf("%v: the partition's bytes are not the file's", args)
				}
				// The file's blocks are allocated once it is shared (before, a
				// file just written may be delayed allocation, without any).
				shared := sharedBlocks(extentsOf(t, filefrag, disk), extentsOf(t, filefrag, part))
				wantShared := int64(size / 4096)
				if start%4096 != 0 {
					wantShared = 0
				}
				if shared < wantShared || (wantShared == 0 && shared != 0) {
					t.Errorf("%v: %d blocks of the disk shared with the partition file, want %d", args, shared, wantShared)
				}
				os.Remove(disk)
			}
		})
	}
}

// diskUsage returns the bytes path takes on disk.
func diskUsage(t *testing.T, path string) int64 {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	return st.Blocks * 512
}

// TestDataRun checks that dataRun finds a sparse file's one run of data
// and, past it, only a hole, so that hashing a sparse partition reads no
// hole (the file system here must keep holes: tmpfs and ext4 do).
func TestDataRun(t *testing.T) {
	t.Parallel()
	name := filepath.Join(t.TempDir(), "sparse")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const size = 64 << 20
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(bytes.Repeat([]byte{1}, 4096), 1<<20); err != nil {
		t.Fatal(err)
	}
	lo, hi := dataRun(f, 0, size)
	if lo > 1<<20 || hi < 1<<20+4096 || hi >= size {
		t.Fatalf("dataRun(0) = [%d, %d), want the run around [%d, %d)", lo, hi, 1<<20, 1<<20+4096)
	}
	if lo, hi := dataRun(f, hi, size); lo != size || hi != size {
		t.Errorf("dataRun past the data = [%d, %d), want [%d, %d): the hole would be read", lo, hi, size, size)
	}
}
