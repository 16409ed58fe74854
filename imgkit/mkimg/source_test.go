package mkimg

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fixturegen/fixturegen/imgkit/ffs"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/msdos"
)

// espFS is a small EFI system partition's tree.
var espFS = fstest.MapFS{
	"EFI/BOOT/BOOTX64.EFI": {Data: bytes.Repeat([]byte("MZ boot "), 3000), Mode: 0o644},
	"EFI/BOOT/grub.cfg":    {Data: []byte("set timeout=0\n"), Mode: 0o644},
}

// ufsFS is a small root file system's tree.
var ufsFS = fstest.MapFS{
	"etc/rc.conf": {Data: []byte("hostname=fixture\n"), Mode: 0o644},
	"bin/sh":      {Data: bytes.Repeat([]byte{0x7f, 'E', 'L', 'F'}, 5000), Mode: 0o755},
}

// reversed is a builder that writes its bytes last chunk first, so that
// its partition must be hashed by reading it back from the disk.
func reversed(b []byte) func(w io.WriterAt) (int64, error) {
	return func(w io.WriterAt) (int64, error) {
		const chunk = 4096
		for off := (len(b) - 1) / chunk * chunk; off >= 0; off -= chunk {
			if _, err := w.WriteAt(b[off:min(off+chunk, len(b))], int64(off)); err != nil {
				return 0, err
			}
		}
		return int64(len(b)), nil
	}
}

// TestSourcesSameDisk builds the same GPT and MBR disks from partition
// files, from io.ReaderAt sources, from the file-system builders in place
// and from a builder writing out of order, and requires the same bytes
// from every one, with derived GUIDs (which hash the contents) and with -y.
func TestSourcesSameDisk(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	msOpts := &msdos.Options{FATType: 16}
	esp, err := msdos.Build(fstree.FS(espFS), msOpts)
	if err != nil {
		t.Fatal(err)
	}
	ufsSized := &ffs.Options{Version: 2, Size: 4 << 20}
	ufs, err := ffs.Build(fstree.FS(ufsFS), ufsSized)
	if err != nil {
		t.Fatal(err)
	}
	ufsAuto, err := ffs.Build(fstree.FS(ufsFS), &ffs.Options{Version: 1})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"esp.img": esp, "ufs.img": ufs, "ufs1.img": ufsAuto}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fromFiles := []Partition{
		{Type: "efi", File: filepath.Join(dir, "esp.img")},
		{Type: "freebsd-ufs", File: filepath.Join(dir, "ufs.img")},
		{Type: "freebsd", Size: 65536},
		{Type: "freebsd-ufs", Source: FileSource(filepath.Join(dir, "ufs1.img"))},
	}
	kinds := map[string][]Partition{
		"readers": {
			{Type: "efi", Source: ReaderSource(bytes.NewReader(esp), int64(len(esp)))},
			{Type: "freebsd-ufs", Source: ReaderSource(bytes.NewReader(ufs), int64(len(ufs)))},
			{Type: "freebsd", Size: 65536},
			{Type: "freebsd-ufs", Source: ReaderSource(bytes.NewReader(ufsAuto), int64(len(ufsAuto)))},
		},
		"builders": {
			{Type: "efi", Source: MSDOSSource(fstree.FS(espFS), msOpts)},
			{Type: "freebsd-ufs", Source: FFSSource(fstree.FS(ufsFS), ufsSized)},
			{Type: "freebsd", Size: 65536},
			{Type: "freebsd-ufs", Source: FFSSource(fstree.FS(ufsFS), &ffs.Options{Version: 1})},
		},
		"out of order": {
			{Type: "efi", Source: BuilderSource("esp", int64(len(esp)), reversed(esp))},
			{Type: "freebsd-ufs", Source: BuilderSource("ufs", int64(len(ufs)), reversed(ufs))},
			{Type: "freebsd", Size: 65536},
			{Type: "freebsd-ufs", Source: BuilderSource("ufs1", int64(len(ufsAuto)), reversed(ufsAuto))},
		},
	}
	for _, scheme := range []string{"gpt", "mbr"} {
		for _, y := range []bool{false, true} {
			want := buildParts(t, scheme, y, fromFiles)
			wantFile := filepath.Join(dir, scheme+".img")
			o, err := Parse([]string{"-s", scheme, "-p", "efi:=" + filepath.Join(dir, "esp.img"), "-p", "freebsd:=" + filepath.Join(dir, "ufs.img"), "-p", "freebsd::65536", "-p", "freebsd:=" + filepath.Join(dir, "ufs1.img")})
			if err != nil {
				t.Fatal(err)
			}
			if scheme == "gpt" {
				o.Partitions[1].Type, o.Partitions[3].Type = "freebsd-ufs", "freebsd-ufs"
			}
			o.FreeBSDTestMode = y
			if err := WriteFile(wantFile, o); err != nil {
				t.Fatal(err)
			}
			if got, err := os.ReadFile(wantFile); err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s -y=%v: WriteFile's disk differs from Build's (%v)", scheme, y, err)
			}
			for kind, parts := range kinds {
				if got := buildParts(t, scheme, y, parts); !bytes.Equal(got, want) {
					t.Errorf("%s -y=%v: the disk from %s differs from the one from files", scheme, y, kind)
				}
			}
		}
	}
	// The contents reach the GUIDs: another ESP gives other GUIDs.
	other := append([]Partition{{Type: "efi", Source: ReaderSource(bytes.NewReader(ufs), int64(len(ufs)))}}, fromFiles[1:]...)
	a, b := buildParts(t, "gpt", false, fromFiles), buildParts(t, "gpt", false, other)
	if bytes.Equal(a[512:1024], b[512:1024]) {
		t.Error("GPT headers equal for different partition contents: the contents do not reach the disk GUID")
	}
}

// buildParts builds the disk of scheme with parts, -y when y; for mbr
// the freebsd-ufs partitions become freebsd slices.
func buildParts(t *testing.T, scheme string, y bool, parts []Partition) []byte {
	t.Helper()
	if scheme == "mbr" {
		parts = append([]Partition(nil), parts...)
		for i := range parts {
			if parts[i].Type == "freebsd-ufs" {
				parts[i].Type = "freebsd"
			}
		}
	}
	b, err := Build(&Options{Scheme: scheme, FreeBSDTestMode: y, Partitions: parts})
	if err != nil {
		t.Fatalf("%s -y=%v: %v", scheme, y, err)
	}
	return b
}

// TestSourceErrors checks that a source that misreports its size, a
// partition with both a file and a source, and a source that cannot be
// made each fail with one line naming the partition, and that nothing is
// left at the output path.
func TestSourceErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := bytes.Repeat([]byte{1}, 10000)
	file := filepath.Join(dir, "part.img")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		p    Partition
		want string
		is   error
	}{
		{"file and source", Partition{Type: "efi", File: file, Source: FileSource(file)}, "partition 1: more than one of a file, a command and a Source", ErrPartition},
		{"short builder", Partition{Type: "efi", Source: BuilderSource("esp", 10000, func(w io.WriterAt) (int64, error) {
			_, err := w.WriteAt(data[:5000], 0)
			return 5000, err
		})}, "partition 1: esp: partition source changed: wrote a partition of 5000 bytes; its size was 10000", ErrSourceChanged},
		{"builder past the end", Partition{Type: "efi", Source: BuilderSource("esp", 100, func(w io.WriterAt) (int64, error) {
			w.WriteAt(data[:200], 0) // its error is ignored: the write is still refused
			return 100, nil
		})}, "a write of 200 bytes at offset 0 is past the partition's 100 bytes", ErrSourceChanged},
		{"short reader", Partition{Type: "efi", Source: ReaderSource(bytes.NewReader(data), 20000)}, "the reader ended before 20000 bytes", ErrSourceChanged},
		{"nil reader", Partition{Type: "efi", Source: ReaderSource(nil, 1)}, "partition 1: io.ReaderAt source: nil io.ReaderAt", ErrPartition},
		{"missing file", Partition{Type: "efi", Source: FileSource(filepath.Join(dir, "nope"))}, "partition 1: " + filepath.Join(dir, "nope") + ": no such file", ErrPartition},
		{"bad msdos", Partition{Type: "efi", Source: MSDOSSource(fstree.FS(espFS), &msdos.Options{FATType: 13})}, "partition 1: msdos file system: ", ErrPartition},
	}
	for _, tc := range tests {
		out := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".img")
		err := WriteFile(out, &Options{Scheme: "gpt", Partitions: []Partition{tc.p}})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, tc.is) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v, want one line with %q wrapping %v", tc.name, err, tc.want, tc.is)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: %s left behind (%v)", tc.name, out, err)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("%d files in the output directory, want only the partition file", len(ents))
	}
}

// randomFile writes n pseudo-random bytes to path and returns them.
func randomFile(t *testing.T, path string, n int, seed uint64) []byte {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSparseFileSource checks that a sparse partition file, whose holes
// are hashed without being read, gives the disk its bytes give from an
// io.ReaderAt, and that its holes stay holes of a disk file.
func TestSparseFileSource(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const size = 6 << 20
	data := make([]byte, size)
	copy(data[2<<20:], bytes.Repeat([]byte("data"), 1024))
	copy(data[size-4096:], bytes.Repeat([]byte("tail"), 1024))
	path := filepath.Join(dir, "sparse.img")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, off := range []int64{2 << 20, size - 4096} {
		if _, err := f.WriteAt(data[off:off+4096], off); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	want := buildParts(t, "gpt", false, []Partition{{Type: "freebsd-ufs", Source: ReaderSource(bytes.NewReader(data), size)}})
	if got := buildParts(t, "gpt", false, []Partition{{Type: "freebsd-ufs", File: path}}); !bytes.Equal(got, want) {
		t.Error("the disk of a sparse file differs from the disk of its bytes")
	}
	disk := filepath.Join(dir, "disk.img")
	if err := WriteFile(disk, &Options{Scheme: "gpt", Partitions: []Partition{{Type: "freebsd-ufs", File: path}}}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(disk)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("WriteFile's disk differs from Build's (%v)", err)
	}
	if used := diskUsage(t, disk); used > 1<<20 {
		t.Errorf("the disk takes %d bytes on disk; its holes were filled", used)
	}
}
