package catalog

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/fixturegen/fixturegen/imgkit/progress"
)

// copyBufSize is the one buffer a copy of a file uses, however large the
// file.
const copyBufSize = 1 << 20

// copyInputs copies the catalogue folder into dst, keeping modes and
// modification times, leaving out the outputs, the sums, the build state,
// the lock and temporary files. Files are copied through one fixed-size
// buffer and holes stay holes. m shows the step "copying the inputs" of
// the files' sizes, counted a buffer (or a hole) at a time.
func copyInputs(ctx context.Context, cat *Catalog, dst string, m *progress.Meter) error {
	skipNames := map[string]bool{SumName: true}
	for _, m := range cat.Entries {
		skipNames[m.Name] = true
	}
	// The walk lists what to copy first, so that the step's total is
	// known before the copy.
	var nodes []copyingNode
	var total int64
	err := filepath.WalkDir(cat.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		r, err := filepath.Rel(cat.Dir, p)
		if err != nil {
			return err
		}
		slash := filepath.ToSlash(r)
		if r != "." && (skipNames[slash] || skip(slash)) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if fi.Mode().IsRegular() {
			total += fi.Size()
		}
		nodes = append(nodes, copyingNode{p, filepath.Join(dst, r), r == ".", fi})
		return nil
	})
	if err != nil {
		return err
	}
	step := m.Step("copying the inputs", total)
	var dirs []copiedDir
	buf := make([]byte, copyBufSize)
	for _, n := range nodes {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := copyNode(n, buf, &dirs, step); err != nil {
			return err
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		d := dirs[i]
		if err := os.Chmod(d.path, d.fi.Mode().Perm()); err != nil {
			return err
		}
		if err := os.Chtimes(d.path, d.fi.ModTime(), d.fi.ModTime()); err != nil {
			return err
		}
	}
	return nil
}

// copyingNode is a file or directory of the catalogue folder that
// copyInputs copies from p to target; top is the folder itself.
type copyingNode struct {
	p, target string
	top       bool
	fi        fs.FileInfo
}

// copiedDir is a directory copyInputs made, whose mode and times it sets
// after the walk.
type copiedDir struct {
	path string
	fi   fs.FileInfo
}

// copyNode copies the node n of the walk to its target: a directory is
// made (unless it is the top, which exists) and added to dirs, a symbolic
// link is made again, a regular file is copied with buf, counted in step,
// and its times; devices, fifos and sockets are not copied.
func copyNode(n copyingNode, buf []byte, dirs *[]copiedDir, step *progress.Step) error {
	p, target, fi := n.p, n.target, n.fi
	switch {
	case fi.IsDir():
		if !n.top {
			if err := os.Mkdir(target, 0o755); err != nil {
				return err
			}
		}
		*dirs = append(*dirs, copiedDir{target, fi})
		return nil // modes and times are set after the walk
	case fi.Mode()&fs.ModeSymlink != 0:
		t, err := os.Readlink(p)
		if err != nil {
			return err
		}
		return os.Symlink(t, target)
	case fi.Mode().IsRegular():
		if err := copyFile(target, p, fi, buf, step); err != nil {
			return err
		}
		return os.Chtimes(target, fi.ModTime(), fi.ModTime())
	}
	return nil
}

// copyFile copies the regular file src to the new file dst with buf,
// leaving a hole wherever src has one or a whole piece of buf is zero,
// and adds its bytes to step as it goes.
func copyFile(dst, src string, fi fs.FileInfo, buf []byte, step *progress.Step) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
	if err != nil {
		return err
	}
	err = copySparse(out, in, fi.Size(), buf, step)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(dst, fi.Mode().Perm())
	}
	return err
}

// copySparse copies size bytes of in to out at the same offsets, skipping
// the holes that in reports (SEEK_DATA, SEEK_HOLE, where the system has
// them) and the pieces that are all zero, then sets out's size. step
// counts the bytes passed, holes included, up to size.
func copySparse(out, in *os.File, size int64, buf []byte, step *progress.Step) error {
	passed := int64(0) // the bytes added to step
	for off := int64(0); off < size; {
		start, end := dataRange(in, off, size)
		if start >= size {
			break
		}
		step.Add(start - passed)
		passed = start
		for pos := start; pos < end; {
			n, err := in.ReadAt(buf[:min(int64(len(buf)), end-pos)], pos)
			if n > 0 && !allZero(buf[:n]) {
				if _, werr := out.WriteAt(buf[:n], pos); werr != nil {
					return werr
				}
			}
			pos += int64(n)
			step.Add(int64(n))
			passed = pos
			if err != nil {
				if errors.Is(err, io.EOF) {
					end = pos
					break
				}
				return err
			}
		}
		off = end
	}
	step.Add(size - passed) // the holes at the end
	return out.Truncate(size)
}

// Whence values of lseek(2) for data and holes (Linux, the BSDs, macOS and
// Solaris agree).
const (
	seekData = 3
	seekHole = 4
)

// dataRange returns the range of data that starts at or after off: from
// SEEK_DATA and SEEK_HOLE where the system answers them, else [off, size).
func dataRange(f *os.File, off, size int64) (start, end int64) {
	start, err := f.Seek(off, seekData)
	if err != nil {
		// ENXIO: no data after off; anything else: not supported.
		if isNoData(err) {
			return size, size
		}
		return off, size
	}
	end, err = f.Seek(start, seekHole)
	if err != nil || end > size {
		end = size
	}
	return start, end
}

func allZero(b []byte) bool {
	for len(b) >= 8 {
		if b[0]|b[1]|b[2]|b[3]|b[4]|b[5]|b[6]|b[7] != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
