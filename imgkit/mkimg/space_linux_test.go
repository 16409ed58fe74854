package mkimg

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/internal/tempfile"
)

// spaceSlack is what a disk's write may take beside the disk at most:
// what the issue promises ("no container needs more free space than its
// own size plus 64 MiB").
const spaceSlack = 64 << 20

// spaceMeter polls the bytes allocated in a folder while a disk is
// written there: its files' blocks, and those of the files this process
// has open there, unlinked ones too (the spools of commands' output).
// It also keeps the temporary files it saw that are not named for the
// disk, which the next write of the disk would not find.
type spaceMeter struct {
	dir, target string
	stop        chan struct{}
	done        sync.WaitGroup
	peak        int64
	foreign     map[string]bool
}

func meterSpace(dir, target string) *spaceMeter {
	m := &spaceMeter{dir: dir, target: target, stop: make(chan struct{}), foreign: map[string]bool{}}
	m.done.Add(1)
	go func() {
		defer m.done.Done()
		for {
			m.peak = max(m.peak, m.sample())
			select {
			case <-m.stop:
				return
			case <-time.After(200 * time.Microsecond):
			}
		}
	}()
	return m
}

// sample returns the bytes allocated now.
func (m *spaceMeter) sample() int64 {
	seen := map[[2]uint64]bool{}
	var n int64
	add := func(p string, follow bool) {
		var st syscall.Stat_t
		var err error
		if follow {
			err = syscall.Stat(p, &st)
		} else {
			err = syscall.Lstat(p, &st)
		}
		if err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
			return
		}
		if k := [2]uint64{st.Dev, st.Ino}; !seen[k] {
			seen[k] = true
			n += st.Blocks * 512
		}
	}
	prefix := strings.TrimSuffix(tempfile.Pattern(m.target), "*")
	if ents, err := os.ReadDir(m.dir); err == nil {
		for _, de := range ents {
			if tempfile.Is(de.Name()) && !strings.HasPrefix(de.Name(), prefix) {
				m.foreign[de.Name()] = true
			}
			add(filepath.Join(m.dir, de.Name()), false)
		}
	}
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil {
		for _, fd := range fds {
			p := filepath.Join("/proc/self/fd", fd.Name())
			if to, err := os.Readlink(p); err == nil && strings.HasPrefix(to, m.dir+"/") {
				add(p, true)
			}
		}
	}
	return n
}

// end stops the polling and returns the peak.
func (m *spaceMeter) end() int64 {
	close(m.stop)
	m.done.Wait()
	return max(m.peak, m.sample())
}

// TestContainerSpace writes a disk of one partition of 80 MiB of random
// bytes in each format, from a file and from a command's output, and a
// vmdks disk of one partition of 96 MiB of text that compresses well
// from a command's output and from a named pipe, and measures the space
// taken beside the disk while it is written: at most the disk's own plus
// spaceSlack, and every temporary file named for the disk. The raw disk
// a container is made from, a command's spool and vmdks's compressed
// spool each give back the space of what is copied as the copy goes, a
// container reads a partition file in place, and a vmdks disk spools a
// stream as its compressed grains.
func TestContainerSpace(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("writes every format of an 80 MiB partition; the run without -short measures it (CI's race run is -short)")
	}
	src := t.TempDir()
	part := filepath.Join(src, "part.img")
	data := make([]byte, 80<<20)
	rand.NewChaCha8([32]byte{'s', 'p', 'a', 'c', 'e'}).Read(data)
	if err := os.WriteFile(part, data, 0o644); err != nil {
		t.Fatal(err)
	}
	text := filepath.Join(src, "part.txt")
	data = data[:0]
	for i := 0; len(data) < 96<<20; i++ {
		data = fmt.Appendf(data, "line %d: the quick brown fox jumps over the lazy dog\n", i)
	}
	if err := os.WriteFile(text, data, 0o644); err != nil {
		t.Fatal(err)
	}
	data = nil
	// Not parallel: one disk at a time keeps the test's disk use and the
	// polling's noise small.
	for _, format := range []string{"raw", "qcow", "qcow2", "vhd", "vhdf", "vhdx", "vmdk", "vmdks"} {
		for _, p := range []string{"freebsd:=" + part, "freebsd:-cat " + part} {
			checkSpace(t, format, p)
		}
	}
	checkSpace(t, "vmdks", "freebsd:-cat "+text)
	fifo := filepath.Join(src, "part.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	fed := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			var g *os.File
			if g, err = os.Open(text); err == nil {
				_, err = io.Copy(f, g)
				g.Close()
			}
			f.Close()
		}
		fed <- err
	}()
	checkSpace(t, "vmdks", "freebsd:="+fifo)
	if err := <-fed; err != nil {
		t.Fatal(err)
	}
}

// checkSpace writes a disk of format with partition p in a new folder
// and checks the space taken there while it is written (see
// TestContainerSpace).
func checkSpace(t *testing.T, format, p string) {
	t.Helper()
	dir := t.TempDir()
	target := filepath.Join(dir, "disk."+format)
	o, err := Parse([]string{"-s", "gpt", "-f", format, "-p", p})
	if err != nil {
		t.Fatal(err)
	}
	m := meterSpace(dir, target)
	err = WriteFile(target, o)
	peak := m.end()
	if err != nil {
		t.Fatalf("-f %s -p %s: %v", format, p, err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(target, &st); err != nil {
		t.Fatal(err)
	}
	disk := st.Blocks * 512
	t.Logf("-f %s -p %s: peak %.1f MiB beside a disk of %.1f MiB", format, p, float64(peak)/(1<<20), float64(disk)/(1<<20))
	if peak > disk+spaceSlack {
		t.Errorf("-f %s -p %s: writing took %.1f MiB, more than the disk's %.1f MiB and 64 MiB", format, p, float64(peak)/(1<<20), float64(disk)/(1<<20))
	}
	if len(m.foreign) > 0 {
		t.Errorf("-f %s -p %s: temporary files not named for the disk: %v", format, p, m.foreign)
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("-f %s -p %s: left %v", format, p, left)
	}
}
