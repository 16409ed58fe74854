package bcache

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// childEnv names the role a re-executed test binary plays; childPath is the
// image path it works on.
const (
	childEnv  = "BCACHE_TEST_CHILD"
	childPath = "BCACHE_TEST_PATH"
)

func TestMain(m *testing.M) {
	if role := os.Getenv(childEnv); role != "" {
		if err := child(role, os.Getenv(childPath)); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(tooltest.M{M: m}.Run())
}

// childPattern is the byte the children write at offset off.
func childPattern(off int64) byte { return byte(off/512) ^ 0xa5 }

// child runs in a re-executed test binary.
//
//   - "commit": build an mmap image of 1 MiB with a pattern in every sector
//     written through the mapped bytes, Commit, exit.
//   - "exit": the same, but exit without Commit or munmap: the temporary file
//     must hold the pattern.
//   - "hang": build the image, print "ready", then wait to be killed.
//   - "rss": write a 256 MiB image in mmap mode and print the RssAnon line
//     of /proc/self/status (Linux).
func child(role, path string) error {
	if role == "rss" {
		return childRSS(path)
	}
	im, err := Create(path, 1<<20, &Options{Mode: ModeMmap})
	if err != nil {
		return err
	}
	for off := int64(0); off < im.Size(); off += 512 {
		b, err := im.Getblk(off, 512)
		if err != nil {
			return err
		}
		for i := range b.Data() {
			b.Data()[i] = childPattern(off)
		}
		if err := im.Bwrite(b); err != nil {
			return err
		}
	}
	switch role {
	case "commit":
		return im.Commit()
	case "exit":
		fmt.Println(im.tmp)
		os.Exit(0)
	case "hang":
		fmt.Println("ready")
		time.Sleep(time.Hour)
	}
	return fmt.Errorf("unknown role %q", role)
}

// startChild re-executes the test binary in the given role.
func startChild(t *testing.T, role, path string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+role, childPath+"="+path)
	cmd.Stderr = os.Stderr
	return cmd
}

// checkPattern checks that file holds the children's pattern.
func checkPattern(t *testing.T, file string) {
	t.Helper()
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1<<20 {
		t.Fatalf("%s: %d bytes, want %d", file, len(got), 1<<20)
	}
	for i, c := range got {
		if c != childPattern(int64(i)) {
			t.Fatalf("%s: byte %#x is %#x, want %#x (the mapping's writes were lost)", file, i, c, childPattern(int64(i)))
		}
	}
}

// childRSS writes every byte of a 256 MiB mmap image and prints RssAnon.
func childRSS(path string) error {
	im, err := Create(path, 256<<20, &Options{Mode: ModeMmap})
	if err != nil {
		return err
	}
	defer im.Abort()
	for off := int64(0); off < im.Size(); off += 32768 {
		b, err := im.Getblk(off, 32768)
		if err != nil {
			return err
		}
		for i := range b.Data() {
			b.Data()[i] = byte(i)
		}
		if err := im.Bwrite(b); err != nil {
			return err
		}
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(line, "RssAnon:") || strings.HasPrefix(line, "RssFile:") || strings.HasPrefix(line, "RssShmem:") {
			fmt.Println(line)
		}
	}
	return im.Commit()
}
