package mkimg

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/ffs"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/msdos"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// inPlaceChildEnv makes the test binary, run again by
// TestInPlaceStaysSmall, write one disk and end: "KIND FORMAT PATH".
const inPlaceChildEnv = "MKIMG_IN_PLACE_CHILD"

// inPlaceSize is the size of TestInPlaceStaysSmall's partitions, and
// inPlaceBound what their disks may take of peak resident memory and of
// allocated blocks, whatever that size.
const (
	inPlaceSize  = 2 << 30
	inPlaceBound = 64 << 20
)

// inPlaceTree is an EFI system partition's tree holding one 9-byte file.
var inPlaceTree = fstest.MapFS{"EFI/BOOT/startup.nsh": {Data: []byte("fs0:boot\n"), Mode: 0o644}}

// inPlaceKinds are the builder sources TestInPlaceStaysSmall writes: a
// FAT32 file system, an FFS one of a given size, and a builder writing
// two pieces out of order, so that its partition is hashed back from the
// disk.
var inPlaceKinds = []string{"msdos", "ffs", "builder"}

// inPlaceSource returns the source of kind and its partition type.
func inPlaceSource(kind string) (Source, string) {
	switch kind {
	case "msdos":
		return MSDOSSource(fstree.FS(inPlaceTree), &msdos.Options{FATType: 32, Size: inPlaceSize, SectorsPerCluster: 8}), "efi"
	case "ffs":
		return FFSSource(fstree.FS(inPlaceTree), &ffs.Options{Version: 2, Size: inPlaceSize}), "freebsd-ufs"
	}
	return BuilderSource("sparse builder", inPlaceSize, func(w io.WriterAt) (int64, error) {
		for _, off := range []int64{inPlaceSize - 4096, 0} {
			if _, err := w.WriteAt([]byte(strings.Repeat("piece ", 600)), off); err != nil {
				return 0, err
			}
		}
		return inPlaceSize, nil
	}), "freebsd"
}

// inPlacePartFile writes the partition file of kind, the bytes its
// source writes in place, for the reference disk.
func inPlacePartFile(t *testing.T, kind, path string) {
	t.Helper()
	var err error
	switch kind {
	case "msdos":
		err = msdos.WriteFile(path, fstree.FS(inPlaceTree), &msdos.Options{FATType: 32, Size: inPlaceSize, SectorsPerCluster: 8})
	case "ffs":
		err = ffs.WriteFile(path, fstree.FS(inPlaceTree), &ffs.Options{Version: 2, Size: inPlaceSize})
	default:
		var f *os.File
		if f, err = os.Create(path); err != nil {
			break
		}
		src, _ := inPlaceSource(kind)
		if err = f.Truncate(inPlaceSize); err == nil {
			_, err = src.(*builderSource).write(f)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}

// inPlaceOptions returns the disk of one partition from src, of type typ,
// in format.
func inPlaceOptions(src Source, typ, format string) *Options {
	return &Options{Scheme: "gpt", Format: format, Partitions: []Partition{{Type: typ, Source: src}}}
}

// TestInPlaceStaysSmall writes GPT disks whose one partition is a 2 GiB
// builder source holding next to nothing (inPlaceKinds), raw and in every
// container format, each in a child process, and requires of each that
// the child's peak resident memory and the disk's allocated blocks stay
// under inPlaceBound, that it takes little CPU, and that its bytes, the
// derived GUIDs included, are those of the disk of the same partition
// from a file. Before the file systems were built in place, the FAT32
// disk took 2.1 GB of resident memory and of blocks, and 40 s. With
// -short it takes one disk in three, each kind in some format.
func TestInPlaceStaysSmall(t *testing.T) {
	if spec := os.Getenv(inPlaceChildEnv); spec != "" {
		f := strings.Fields(spec)
		src, typ := inPlaceSource(f[0])
		if err := WriteFile(f[2], inPlaceOptions(src, typ, f[1])); err != nil {
			t.Fatal(err)
		}
		// The peak of this process's resident memory, as bcache's RSS
		// test reads its own: the rusage of a child started with vfork
		// would count the parent's too.
		status, err := os.ReadFile("/proc/self/status")
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(line, "VmHWM:") {
				fmt.Println(line)
			}
		}
		return
	}
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	checkKeepsHoles(t, dir)
	for ki, kind := range inPlaceKinds {
		part := filepath.Join(dir, kind+".part")
		inPlacePartFile(t, kind, part)
		_, typ := inPlaceSource(kind)
		for fi, format := range Formats() {
			if !tooltest.ShortSample(ki*len(Formats())+fi, 3) {
				continue
			}
			t.Run(kind+"-"+format, func(t *testing.T) {
				t.Parallel()
				out := filepath.Join(dir, kind+"."+format)
				cmd := exec.Command(exe, "-test.run=^TestInPlaceStaysSmall$")
				cmd.Env = append(os.Environ(), inPlaceChildEnv+"="+kind+" "+format+" "+out)
				msg, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("child: %v\n%s", err, msg)
				}
				peak := int64(-1)
				for _, line := range strings.Split(string(msg), "\n") {
					if f := strings.Fields(line); len(f) == 3 && f[0] == "VmHWM:" {
						peak, _ = strconv.ParseInt(f[1], 10, 64)
						peak <<= 10 // kB
					}
				}
				if peak < 0 {
					t.Fatalf("no VmHWM line from the child:\n%s", msg)
				}
				cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
				used := diskUsage(t, out)
				t.Logf("peak RSS %d KiB, %d KiB allocated, %v of CPU", peak>>10, used>>10, cpu)
				if peak > inPlaceBound {
					t.Errorf("peak RSS %d MiB writing a disk of a 2 GiB partition, want under %d MiB", peak>>20, inPlaceBound>>20)
				}
				if used > inPlaceBound {
					t.Errorf("%d MiB allocated for a disk of a 2 GiB partition holding next to nothing, want under %d MiB", used>>20, inPlaceBound>>20)
				}
				if cpu > 10*time.Second {
					t.Errorf("%v of CPU for a disk of a 2 GiB partition holding next to nothing", cpu)
				}
				ref := filepath.Join(dir, kind+".ref."+format)
				if err := WriteFile(ref, inPlaceOptions(FileSource(part), typ, format)); err != nil {
					t.Fatal(err)
				}
				if off, err := tooltest.FirstDiff(out, ref); err != nil || off >= 0 {
					t.Errorf("the disk differs from the one of a partition file at byte %#x (%v)", off, err)
				}
				os.Remove(out)
				os.Remove(ref)
			})
		}
	}
}

// checkKeepsHoles ends the test, as tooltest.Missing does, when the file
// system of dir allocates the holes of a sparse file.
func checkKeepsHoles(t *testing.T, dir string) {
	t.Helper()
	probe := filepath.Join(dir, "holes-probe")
	f, err := os.Create(probe)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteAt([]byte{1}, 8<<20)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(probe)
	if used := diskUsage(t, probe); used >= 8<<20 {
		tooltest.Missing(t, fmt.Sprintf("the file system of %s does not keep holes: a sparse file of 8 MiB takes %d bytes", dir, used))
	}
}
