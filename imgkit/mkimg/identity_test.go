package mkimg

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// checkFreeBSDMatrix compares WriteFile's, Write's and Build's disks with
// freebsd-mkimg -y's for each command line, one parallel subtest a line,
// in a directory of inputs' files.
func checkFreeBSDMatrix(t *testing.T, lines []string) {
	t.Helper()
	ref := tooltest.Need(t, "freebsd-mkimg")
	eachLine(t, lines, func(t *testing.T, dir, line string) {
		checkFreeBSDIdentity(t, ref, dir, line)
	})
}

// checkFreeBSDIdentity runs freebsd-mkimg -y and WriteFile, Write and
// Build on one command line, in dir, and compares the disks.
func checkFreeBSDIdentity(t *testing.T, ref, dir, line string) {
	t.Helper()
	checkFreeBSDWith(t, ref, dir, append(strings.Fields(line), "-y"), compareDisks, true)
}

// checkFreeBSDWith runs freebsd-mkimg and Build with args in dir and
// compares Build's disk with freebsd-mkimg's by compare (compareDisks
// byte for byte, or a container's own comparison that explains the
// difference); with writers, WriteFile and Write must give Build's
// bytes too. It returns Build's disk.
func checkFreeBSDWith(t *testing.T, ref, dir string, args []string, compare func(t *testing.T, got, want []byte), writers bool) []byte {
	t.Helper()
	want, _ := freebsdDisk(t, ref, dir, args)
	o := parseIn(t, dir, args)
	built := mustBuild(t, o)
	compare(t, built, want)
	if !writers {
		return built
	}
	if !bytes.Equal(writeFileBytes(t, o), built) {
		t.Error("WriteFile's bytes differ from Build's")
	}
	var buf writerAtBuffer
	n, err := Write(&buf, o)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(len(built)) || !bytes.Equal(buf.b, built) {
		t.Errorf("Write wrote %d bytes, not Build's %d", n, len(built))
	}
	return built
}

// freebsdDisk runs freebsd-mkimg (ref) with args in dir, writing to a
// temporary file, and returns the disk it wrote and what it wrote to
// standard error (its -v report); it fails the test when freebsd-mkimg
// fails.
func freebsdDisk(t *testing.T, ref, dir string, args []string) (disk []byte, log *bytes.Buffer) {
	t.Helper()
	want := filepath.Join(t.TempDir(), "want.img")
	var stderr bytes.Buffer
	cmd := exec.Command(ref, append(append([]string{}, args...), "-o", want)...)
	cmd.Dir, cmd.Stderr = dir, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("freebsd-mkimg %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	disk, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	return disk, &stderr
}

// writeFileBytes writes o with WriteFile to a temporary file and returns
// its bytes.
func writeFileBytes(t *testing.T, o *Options) []byte {
	t.Helper()
	got := filepath.Join(t.TempDir(), "got.img")
	if err := WriteFile(got, o); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writerAtBuffer is an io.WriterAt over a growing byte slice.
type writerAtBuffer struct{ b []byte }

func (w *writerAtBuffer) WriteAt(p []byte, off int64) (int, error) {
	if end := int(off) + len(p); end > len(w.b) {
		w.b = append(w.b, make([]byte, end-len(w.b))...)
	}
	return copy(w.b[off:], p), nil
}

// shortName keeps a subtest's name readable for the command lines of
// thousands of partitions.
func shortName(line string) string {
	if len(line) > 120 {
		return line[:120] + "..." + strconv.Itoa(len(strings.Fields(line)))
	}
	return line
}

// eachLine runs check on each command line in a parallel subtest named
// by shortName, with inputs' files in dir.
func eachLine(t *testing.T, lines []string, check func(t *testing.T, dir, line string)) {
	t.Helper()
	dir := inputsDir(t)
	for _, line := range lines {
		t.Run(shortName(line), func(t *testing.T) {
			t.Parallel()
			check(t, dir, line)
		})
	}
}

// checkFreeBSDVerbose checks that the lines -v writes (Options.Log) for
// args, a command line with -v, are freebsd-mkimg -v's, from WriteFile
// and from Build.
func checkFreeBSDVerbose(t *testing.T, ref, dir string, args []string) {
	t.Helper()
	_, want := freebsdDisk(t, ref, dir, args)
	o := parseIn(t, dir, args)
	for _, w := range []struct {
		name  string
		write func() error
	}{
		{"WriteFile", func() error { return WriteFile(filepath.Join(t.TempDir(), "got.img"), o) }},
		{"Build", func() error { _, err := Build(o); return err }},
	} {
		var got bytes.Buffer
		o.Log = &got
		if err := w.write(); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%s: %s's -v lines:\n%s\nwant freebsd-mkimg's:\n%s", strings.Join(args, " "), w.name, got.String(), want.String())
		}
	}
}
