package mkimg

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
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
// Build on one command line, in dir, and compares the disks byte for byte.
func checkFreeBSDIdentity(t *testing.T, ref, dir, line string) {
	t.Helper()
	checkFreeBSDWith(t, ref, dir, append(strings.Fields(line), "-y"), nil, true)
}

// bigDisk is the size of raw disk from which checkFreeBSDWith builds the
// disk in memory (Build, Write) only with FIXTUREGEN_LONG=1.
const bigDisk = 64 << 20

// rawDiskSize returns the size of the raw disk of o, which Build and
// Write hold in memory whatever the container, or 0 when o is refused.
func rawDiskSize(o *Options) int64 {
	l, err := planIn(o, spoolPlace{}, true)
	if err != nil {
		return 0 // Build says why
	}
	defer l.close()
	return int64(l.sectors * l.secsz)
}

// checkFreeBSDWith runs freebsd-mkimg and Build with args in dir and
// compares Build's disk with freebsd-mkimg's by compare (a container's own
// comparison that explains the difference; nil compares byte for byte,
// reading freebsd-mkimg's disk a piece at a time). With writers, WriteFile
// must give Build's bytes and Write WriteFile's. Build and Write hold the
// disk in memory, and a container's raw disk beside it: they take twice
// the raw disk's size of tooltest.Reserve's budget, so that the 300 MiB
// disks of vhdSchemeLines are built one at a time. Where the raw disk is
// bigDisk bytes or more and writers is set, only WriteFile's disk (made
// through files) is compared with freebsd-mkimg's, unless
// FIXTUREGEN_LONG=1: the smaller disks compare all three, which share
// their code but for where the bytes go. It returns Build's disk when
// writers is false; with writers it lets it go before Write builds the
// disk again, so that one big disk at a time is in memory, and returns
// nil.
func checkFreeBSDWith(t *testing.T, ref, dir string, args []string, compare func(t *testing.T, got, want []byte), writers bool) []byte {
	t.Helper()
	wantFile, _ := freebsdDiskFile(t, ref, dir, args)
	o := parseIn(t, dir, args)
	raw := rawDiskSize(o)
	big := raw >= bigDisk
	if big && writers && !tooltest.Long() {
		checkWriteFileOnly(t, o, wantFile, compare)
		return nil
	}
	tooltest.Reserve(t, 2*raw)
	built := mustBuild(t, o)
	if compare == nil {
		compareDiskFile(t, built, wantFile)
	} else {
		want, err := os.ReadFile(wantFile)
		if err != nil {
			t.Fatal(err)
		}
		compare(t, built, want)
	}
	if !writers {
		return built
	}
	got := filepath.Join(t.TempDir(), "got.img")
	if err := WriteFile(got, o); err != nil {
		t.Fatal(err)
	}
	if d, err := tooltest.FirstDiffBytes(got, built); err != nil || d >= 0 {
		t.Fatalf("WriteFile's bytes differ from Build's at %#x (%v)", d, err)
	}
	size := int64(len(built))
	if built = nil; big {
		runtime.GC() // Build's disk, before Write builds it again
	}
	f, err := os.Open(got)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := &diffWriterAt{want: f, size: size}
	n, err := Write(w, o)
	if err != nil {
		t.Fatal(err)
	}
	if n != size {
		t.Errorf("Write wrote %d bytes, not Build's %d", n, size)
	}
	if msg := w.check(); msg != "" {
		t.Errorf("Write: %s", msg)
	}
	return nil
}

// checkWriteFileOnly compares the disk WriteFile makes of o with
// freebsd-mkimg's in the file want: as files (tooltest.FirstDiff) when
// compare is nil, else by compare.
func checkWriteFileOnly(t *testing.T, o *Options, want string, compare func(t *testing.T, got, want []byte)) {
	t.Helper()
	got := filepath.Join(t.TempDir(), "got.img")
	if err := WriteFile(got, o); err != nil {
		t.Fatal(err)
	}
	if compare != nil {
		compare(t, mustReadFile(t, got), mustReadFile(t, want))
		return
	}
	d, err := tooltest.FirstDiff(got, want)
	if err != nil {
		t.Fatal(err)
	}
	if d >= 0 {
		compareDiskFile(t, mustReadFile(t, got), want)
	}
}

// mustReadFile returns the bytes of the file name.
func mustReadFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// compareDiskFile fails the test at the first sector where got differs
// from the disk in the file want, or when their sizes differ, as
// compareDisks does, without reading the file into memory.
func compareDiskFile(t *testing.T, got []byte, want string) {
	t.Helper()
	fi, err := os.Stat(want)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() != int64(len(got)) {
		t.Fatalf("disk is %d bytes, freebsd-mkimg's %d", len(got), fi.Size())
	}
	d, err := tooltest.FirstDiffBytes(want, got)
	if err != nil {
		t.Fatal(err)
	}
	if d < 0 {
		return
	}
	off := d &^ 511
	f, err := os.Open(want)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sector := make([]byte, 512)
	if _, err := f.ReadAt(sector, off); err != nil {
		t.Fatal(err)
	}
	t.Fatalf("disks differ in the 512 bytes at %#x:\ngot  %x\nwant %x", off, got[off:off+512], sector)
}

// freebsdDiskFile runs freebsd-mkimg (ref) with args in dir, writing to a
// temporary file, and returns the file's path and what freebsd-mkimg
// wrote to standard error (its -v report); it fails the test when
// freebsd-mkimg fails.
func freebsdDiskFile(t *testing.T, ref, dir string, args []string) (disk string, log *bytes.Buffer) {
	t.Helper()
	want := filepath.Join(t.TempDir(), "want.img")
	var stderr bytes.Buffer
	cmd := exec.Command(ref, append(append([]string{}, args...), "-o", want)...)
	cmd.Dir, cmd.Stderr = dir, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("freebsd-mkimg %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return want, &stderr
}

// freebsdDisk runs freebsd-mkimg as freebsdDiskFile does and returns the
// disk it wrote and its -v report.
func freebsdDisk(t *testing.T, ref, dir string, args []string) (disk []byte, log *bytes.Buffer) {
	t.Helper()
	want, log := freebsdDiskFile(t, ref, dir, args)
	disk, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	return disk, log
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

// diffWriterAt is an io.WriterAt that compares what it is given with the
// size bytes of want instead of keeping it: it notes the first offset
// where a write differs from want or goes past size, and which ranges
// were written, so that check can tell whether the writes made want.
type diffWriterAt struct {
	want    io.ReaderAt
	size    int64
	buf     []byte
	diff    int64      // the first difference + 1; 0 for none yet
	written [][2]int64 // the ranges written, those that touch merged
}

func (w *diffWriterAt) WriteAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("diffWriterAt: negative offset")
	}
	end := off + int64(len(p))
	w.note(off, end)
	if end > w.size {
		w.differ(max(off, w.size))
		p = p[:max(w.size-off, 0)]
	}
	if len(p) == 0 {
		return int(end - off), nil
	}
	if cap(w.buf) < len(p) {
		w.buf = make([]byte, len(p))
	}
	want := w.buf[:len(p)]
	if _, err := w.want.ReadAt(want, off); err != nil && err != io.EOF {
		return 0, err
	}
	if !bytes.Equal(p, want) {
		for i := range p {
			if p[i] != want[i] {
				w.differ(off + int64(i))
				break
			}
		}
	}
	return int(end - off), nil
}

// differ notes a difference at off.
func (w *diffWriterAt) differ(off int64) {
	if w.diff == 0 || off < w.diff-1 {
		w.diff = off + 1
	}
}

// note adds [off, end) to the ranges written.
func (w *diffWriterAt) note(off, end int64) {
	if n := len(w.written); n > 0 && off <= w.written[n-1][1] && end >= w.written[n-1][0] {
		last := &w.written[n-1]
		last[0], last[1] = min(last[0], off), max(last[1], end)
		return
	}
	w.written = append(w.written, [2]int64{off, end})
}

// check returns what is wrong with the writes: a byte that differs from
// want or lies past its end, or one of want's bytes never written; or "".
func (w *diffWriterAt) check() string {
	if w.diff != 0 {
		return fmt.Sprintf("the bytes written differ from the disk's at %#x", w.diff-1)
	}
	ranges := slices.Clone(w.written)
	slices.SortFunc(ranges, func(a, b [2]int64) int { return int(min(max(a[0]-b[0], -1), 1)) })
	covered := int64(0)
	for _, r := range ranges {
		if r[0] > covered {
			break
		}
		covered = max(covered, r[1])
	}
	if covered < w.size {
		return fmt.Sprintf("the disk's byte at %#x was never written", covered)
	}
	return ""
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
// by shortName, with inputs' files in dir; with -short on every other
// line (tooltest.ShortSample).
func eachLine(t *testing.T, lines []string, check func(t *testing.T, dir, line string)) {
	t.Helper()
	dir := inputsDir(t)
	for i, line := range lines {
		if !tooltest.ShortSample(i, 2) {
			continue
		}
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

// TestDiffWriterAt checks the helper that stands for Write's buffer in
// checkFreeBSDWith: the same bytes in any order pass; a changed byte, a
// byte past the end and a byte never written are each found.
func TestDiffWriterAt(t *testing.T) {
	t.Parallel()
	want := []byte("0123456789abcdef")
	for _, c := range []struct {
		name   string
		writes map[int64]string
		msg    string
	}{
		{"whole", map[int64]string{0: "0123456789abcdef"}, ""},
		{"pieces", map[int64]string{8: "89abcdef", 0: "01234", 4: "4567"}, ""},
		{"changed", map[int64]string{0: "01234567", 8: "89aBcdef"}, "differ from the disk's at 0xb"},
		{"past the end", map[int64]string{0: "0123456789abcdef", 16: "x"}, "differ from the disk's at 0x10"},
		{"gap", map[int64]string{0: "0123", 5: "56789abcdef"}, "byte at 0x4 was never written"},
		{"short", map[int64]string{0: "0123456789abcde"}, "byte at 0xf was never written"},
	} {
		w := &diffWriterAt{want: bytes.NewReader(want), size: int64(len(want))}
		for off, p := range c.writes {
			if n, err := w.WriteAt([]byte(p), off); n != len(p) || err != nil {
				t.Fatalf("%s: WriteAt = %d, %v", c.name, n, err)
			}
		}
		if msg := w.check(); (c.msg == "") != (msg == "") || !strings.Contains(msg, c.msg) {
			t.Errorf("%s: check() = %q, want %q", c.name, msg, c.msg)
		}
	}
}
