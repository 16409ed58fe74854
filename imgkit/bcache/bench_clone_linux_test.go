package bcache

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// BenchmarkCloneThreshold copies 256 files of one size (64 MiB at most) into a new image
// on an XFS (and a btrfs) loop mount with CopyFiles, each at a 4 KiB
// aligned offset as FAT clusters and FFS blocks are, once with every file
// cloned and once with cloning off, to choose the thresholds of
// cloneFSTypes: the size from which a clone (one file-system transaction)
// costs less than the copy of data that is in the page cache. The files
// lie side by side (a FAT image's files: copies join into runs of one
// write, whose span is preallocated) or 1 MiB apart (the pieces of FFS
// files in different groups: each copy is a write of its own). The
// sources are written back to disk (sync) before the runs, as fsbench
// does.
//
//	go test -run '^$' -bench CloneThreshold -benchtime 5x ./imgkit/bcache/
func BenchmarkCloneThreshold(b *testing.B) {
	for _, fstype := range []string{"xfs", "btrfs"} {
		b.Run(fstype, func(b *testing.B) {
			mnt := tooltest.LoopMount(b, fstype)
			for _, gap := range []int64{0, 1 << 20} {
				for _, size := range []int64{4 << 10, 16 << 10, 32 << 10, 64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20} {
					files := cloneBenchFiles(b, mnt, size, int(min(256, (64<<20)/size)), gap)
					kind := "side by side"
					if gap > 0 {
						kind = "apart"
					}
					for _, noClone := range []bool{false, true} {
						name := fmt.Sprintf("%s/%dK/clone", kind, size>>10)
						if noClone {
							name = fmt.Sprintf("%s/%dK/copy", kind, size>>10)
						}
						b.Run(name, func(b *testing.B) { benchCopyFiles(b, mnt, files, noClone) })
					}
					os.RemoveAll(filepath.Dir(files[0].Path))
				}
			}
		})
	}
}

// cloneBenchFiles writes n source files of size bytes under dir and
// returns their copies, one after the other at 4 KiB aligned offsets,
// gap bytes apart.
func cloneBenchFiles(b *testing.B, dir string, size int64, n int, gap int64) []FileCopy {
	src := filepath.Join(dir, fmt.Sprintf("src%d", size))
	if err := os.Mkdir(src, 0o755); err != nil {
		b.Fatal(err)
	}
	data := make([]byte, size)
	var files []FileCopy
	step := (size+4095)&^4095 + gap
	for i := range n {
		for j := range data {
			data[j] = byte(i*131 + j*7)
		}
		p := filepath.Join(src, fmt.Sprint(i))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
		files = append(files, FileCopy{Off: int64(i) * step, N: size, Pad: step - size - gap, Path: p})
	}
	syscall.Sync()
	return files
}

// benchCopyFiles times CopyFiles of files into a new mmap image in dir.
func benchCopyFiles(b *testing.B, dir string, files []FileCopy, noClone bool) {
	saved := cloneMin
	cloneMin = 0
	defer func() { cloneMin = saved }()
	last := files[len(files)-1]
	for b.Loop() {
		b.StopTimer()
		im, err := Create(filepath.Join(dir, "img"), last.Off+last.N+last.Pad, &Options{Mode: ModeMmap, NoClone: noClone})
		if err != nil {
			b.Fatal(err)
		}
		syscall.Sync()
		b.StartTimer()
		if i, err := im.CopyFiles(files); err != nil {
			im.Abort()
			b.Fatal(i, err)
		}
		b.StopTimer()
		if (im.clone.cloned.Load() > 0) == noClone {
			b.Fatalf("cloned %d bytes with NoClone %v", im.clone.cloned.Load(), noClone)
		}
		im.Abort()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(len(files)), "µs/file")
}
