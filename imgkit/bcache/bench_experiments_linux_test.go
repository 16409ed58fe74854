package bcache

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkCopyMediumExperiments copies the files of the medium benchmark
// tree (see mediumBatch) by experiments not kept, to compare with
// BenchmarkCopyMedium: reading the sources straight into the mapped bytes
// with one or two goroutines, after read-around faults (the default), after
// madvise(MADV_POPULATE_WRITE) of the data range, or after fallocate(2). It
// reports the best time of each in ms ("<variant>-ms"), Create to Commit.
//
//	go test -run '^$' -bench CopyMediumExperiments -benchtime 8x ./imgkit/bcache/
func BenchmarkCopyMediumExperiments(b *testing.B) {
	if !mmapSupported {
		b.Skip("no mmap")
	}
	batch, dataEnd := mediumBatch(b)
	size := dataEnd + 1<<20
	path := filepath.Join(b.TempDir(), "img")
	readInto := func(im *Image, workers int, populate bool) error {
		if populate {
			if err := unix.Madvise(im.data[1<<20:dataEnd], unix.MADV_POPULATE_WRITE); err != nil {
				return err
			}
		}
		var next atomic.Int64
		var wg sync.WaitGroup
		var ferr atomic.Value
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := next.Add(1) - 1
					if i >= int64(len(batch)) {
						return
					}
					fc := batch[i]
					fd, err := unix.Open(fc.Path, unix.O_RDONLY, 0)
					if err != nil {
						ferr.Store(err)
						return
					}
					dst := im.data[fc.Off : fc.Off+fc.N]
					for len(dst) > 0 {
						n, err := unix.Read(fd, dst)
						if err != nil || n == 0 {
							ferr.Store(fmt.Errorf("%s: short read: %v", fc.Path, err))
							break
						}
						dst = dst[n:]
					}
					unix.Close(fd)
				}
			}()
		}
		wg.Wait()
		if err, ok := ferr.Load().(error); ok {
			return err
		}
		return nil
	}
	vs := []struct {
		name string
		run  func(im *Image) error
	}{
		{"fallocate+mapread2", func(im *Image) error {
			if err := unix.Fallocate(int(im.f.Fd()), 0, 1<<20, dataEnd-1<<20); err != nil {
				return err
			}
			return readInto(im, 2, false)
		}},
		{"mapread1", func(im *Image) error { return readInto(im, 1, false) }},
		{"mapread2-populate", func(im *Image) error { return readInto(im, 2, true) }},
		{"mapread2-readaround", func(im *Image) error { return readInto(im, 2, false) }},
	}
	best := make([]time.Duration, len(vs))
	for b.Loop() {
		for i, v := range vs {
			syncForBench()
			start := time.Now()
			im, err := Create(path, size, &Options{Mode: ModeMmap})
			if err != nil {
				b.Fatal(err)
			}
			if err := im.Guard(func() error { return v.run(im) }); err != nil {
				b.Fatal(v.name, err)
			}
			if err := im.Commit(); err != nil {
				b.Fatal(err)
			}
			if d := time.Since(start); best[i] == 0 || d < best[i] {
				best[i] = d
			}
			os.Remove(path)
		}
	}
	for i, v := range vs {
		b.ReportMetric(float64(best[i].Microseconds())/1000, v.name+"-ms")
	}
}
