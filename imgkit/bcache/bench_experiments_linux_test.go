package bcache

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/internal/benchtree"
	"golang.org/x/sys/unix"
)

// BenchmarkCopyMediumExperiments copies the files of the medium benchmark
// tree (as BenchmarkCopyMedium lays them out) with CopyFiles, with and
// without preallocation, and by experiments not kept: reading the sources
// straight into the mapped bytes with one or two goroutines, after
// read-around faults (the default), after madvise(MADV_POPULATE_WRITE) of
// the data range, or after fallocate(2). It reports the best time of each
// in ms ("<variant>-ms"), Create to Commit.
//
//	go test -run '^$' -bench CopyMediumExperiments -benchtime 8x ./imgkit/bcache/
func BenchmarkCopyMediumExperiments(b *testing.B) {
	tree := filepath.Join(os.TempDir(), "fixturegen-benchtree-medium")
	if !mmapSupported {
		b.Skip("no mmap")
	}
	if err := benchtree.Generate(tree, "medium"); err != nil {
		b.Fatal(err)
	}
	plan, _ := benchtree.PlanFor("medium")
	var batch []FileCopy
	for _, f := range plan.Files {
		if f.Size > 0 {
			batch = append(batch, FileCopy{N: f.Size, Path: filepath.Join(tree, filepath.FromSlash(f.Path))})
		}
	}
	sort.Slice(batch, func(i, j int) bool { return batch[i].Path < batch[j].Path })
	off := int64(1 << 20)
	for i := range batch {
		batch[i].Off = off
		off += (batch[i].N + 8191) &^ 8191
	}
	dataEnd := off
	size := off + 1<<20
	path := filepath.Join(b.TempDir(), "img")
	readInto := func(im *Image, workers int, populate bool) error {
		if populate {
			if err := unix.Madvise(im.data[1<<20:dataEnd], 23 /* MADV_POPULATE_WRITE */); err != nil {
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
	// grouped copies runs of files whose slots follow each other, up to
	// bulkSize bytes, with one pwrite per run (the slack between them
	// written as zeros), as a writer could when the slack is its own.
	grouped := func(im *Image, workers int) error {
		var groups [][2]int // [first, end) indexes into batch
		for i := 0; i < len(batch); {
			j := i + 1
			for j < len(batch) && batch[j].Off-batch[i].Off+batch[j].N <= bulkSize && batch[j].Off-(batch[j-1].Off+batch[j-1].N) < 8192 {
				j++
			}
			groups = append(groups, [2]int{i, j})
			i = j
		}
		preallocate(im.f, batch[0].Off, dataEnd-batch[0].Off)
		var next atomic.Int64
		var wg sync.WaitGroup
		var ferr atomic.Value
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				buf := make([]byte, bulkSize)
				for {
					g := next.Add(1) - 1
					if g >= int64(len(groups)) {
						return
					}
					first, end := groups[g][0], groups[g][1]
					if end-first == 1 {
						if err := im.copyPath(buf, &batch[first]); err != nil {
							ferr.Store(err)
						}
						continue
					}
					base := batch[first].Off
					last := batch[end-1]
					out := buf[:last.Off+last.N-base]
					clear(out)
					for _, fc := range batch[first:end] {
						f, err := openSource(fc.Path)
						if err == nil {
							_, err = io.ReadFull(f, out[fc.Off-base:][:fc.N])
							f.Close()
						}
						if err != nil {
							ferr.Store(err)
						}
					}
					if _, err := im.f.WriteAt(out, base); err != nil {
						ferr.Store(err)
					}
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
		{"copyfiles-prealloc", func(im *Image) error { _, err := im.CopyFiles(batch); return err }},
		{"grouped-prealloc-4", func(im *Image) error { return grouped(im, 4) }},
		{"grouped-prealloc-2", func(im *Image) error { return grouped(im, 2) }},
		{"copyfiles-no-prealloc", func(im *Image) error {
			preallocOn = false
			defer func() { preallocOn = true }()
			_, err := im.CopyFiles(batch)
			return err
		}},
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
