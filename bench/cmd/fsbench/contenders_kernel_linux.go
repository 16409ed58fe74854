package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"
)

// The kernel-copy rows: every file of the tree copied into one output
// with copy_file_range(2), each at its own offset, so that the kernel
// copies each byte once from the source's page cache into the output's
// (no copy through user memory, as the floor's read and write make): by
// one thread, and split over two, as fixturegen's copy workers split it.
// They measure the kernel path that every image writer pays for on a
// file system without shared extents (issue 23: allocating and filling
// the output's page cache), the limit below which no writer that copies
// the data gets.
func init() {
	for _, threads := range []int{1, 2} {
		name := "sanity: copy_file_range of every file into one (1 thread)"
		if threads == 2 {
			name = "sanity: copy_file_range of every file into one (2 threads)"
		}
		register(contender{Name: name, Run: func(tree, outdir string) error {
			return kernelCopy(tree, filepath.Join(outdir, "kernel.bin"), threads)
		}})
	}
}

// kernelCopy copies every regular file of tree, in walk order and back to
// back, into the file out with copy_file_range, the files shared out
// between threads goroutines in turn.
func kernelCopy(tree, out string, threads int) error {
	type piece struct {
		path string
		off  int64
		n    int64
	}
	var pieces []piece
	var off int64
	err := filepath.WalkDir(tree, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		pieces = append(pieces, piece{p, off, fi.Size()})
		off += fi.Size()
		return nil
	})
	if err != nil {
		return err
	}
	dst, err := os.Create(out)
	if err != nil {
		return err
	}
	defer dst.Close()
	errs := make([]error, threads)
	var wg sync.WaitGroup
	for t := range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := t; i < len(pieces) && errs[t] == nil; i += threads {
				errs[t] = copyRange(dst, pieces[i].path, pieces[i].off, pieces[i].n)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return dst.Close()
}

// copyRange copies the n bytes of the file at path to offset off of dst.
func copyRange(dst *os.File, path string, off, n int64) error {
	src, err := os.Open(path)
	if err != nil {
		return err
	}
	defer src.Close()
	for n > 0 {
		m, err := unix.CopyFileRange(int(src.Fd()), nil, int(dst.Fd()), &off, int(n), 0)
		if err != nil {
			return &fs.PathError{Op: "copy_file_range", Path: path, Err: err}
		}
		if m == 0 {
			return &fs.PathError{Op: "copy_file_range", Path: path, Err: unix.EIO}
		}
		n -= int64(m)
	}
	return nil
}
