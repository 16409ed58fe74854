package mkimg

import (
	"errors"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/internal/diskio"
	"github.com/fixturegen/fixturegen/imgkit/vdisk"
	"hash"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/internal/nbopen"
	"github.com/fixturegen/fixturegen/imgkit/progress"
	"github.com/fixturegen/fixturegen/internal/tempfile"
)

// contents finds what fills each partition as place comes to it: a
// regular file is sized by its length and copied in when the disk is
// written; a command's standard output, or a file that is not a regular
// one (a pipe, a device), is read once to its end into a spool, an
// unlinked temporary file in spool, so that the partition's size is
// known and its bytes are never held in memory whole.
type contents struct {
	place  spoolPlace      // where spools are made
	dir    string          // the commands' working directory; "" the process's
	stderr io.Writer       // the commands' standard error; nil discards it
	meter  *progress.Meter // told of each spool's step ("reading NAME")
	spools []*os.File
	names  []string // spools a system would not unlink while open
	// stream, when not nil, has a stream spooled by the container format
	// (spoolStream), unless an absolute offset may put it under metadata.
	stream *streaming
}

// close closes every spool.
func (c *contents) close() {
	for _, f := range c.spools {
		f.Close()
	}
	for _, name := range c.names {
		os.Remove(name)
		tempfile.Forget(name)
	}
	c.spools, c.names = nil, nil
}

// resolveFile splits an offset off a := partition's File as mkimg does
// (Partition.SplitFile) and refuses a missing file or a directory.
func (c *contents) resolveFile(p *placed) error {
	if p.File == "" {
		return nil
	}
	p.Partition = p.SplitFile()
	fi, err := os.Stat(p.File)
	if err != nil {
		return fmt.Errorf("%w: partition %d: %s: %w", ErrPartition, p.index+1, p.File, bareError(err))
	}
	if fi.IsDir() {
		return fmt.Errorf("%w: partition %d: %s is a directory", ErrPartition, p.index+1, p.File)
	}
	return nil
}

// SplitFile returns p with its File's offset split off as mkimg splits
// it, when the disk is written: when no file of the whole name exists
// and the text after the last colon (in the last path element) is an
// [+]OFFSET, File loses it and Offset and Absolute get it. A partition
// that has an Offset already, or no File, is returned as it is. A build
// tool that lists the files a disk reads (Options.Inputs) lists the
// names SplitFile gives.
func (p Partition) SplitFile() Partition {
	if p.File == "" || p.Offset != 0 || p.Absolute {
		return p
	}
	if _, err := os.Stat(p.File); err == nil {
		return p
	}
	if i := strings.LastIndexByte(p.File, ':'); i > 0 && !strings.ContainsRune(p.File[i:], filepath.Separator) {
		if off, abs, err := parseOffset(p.File[i+1:]); err == nil {
			p.File, p.Offset, p.Absolute = p.File[:i], off, abs
		}
	}
	return p
}

// size sets p.bytes: Size for an empty partition, a Source's size, the
// length of a regular file, or what a command or another file gave,
// spooled.
func (c *contents) size(p *placed) error {
	switch {
	case p.Source != nil:
		n, err := p.Source.Size()
		if _, isFile := p.Source.(fileSource); err != nil && isFile {
			return fmt.Errorf("%w: partition %d: %w", ErrPartition, p.index+1, err) // a file's errors name it
		} else if err != nil {
			return fmt.Errorf("%w: partition %d: %s: %w", ErrPartition, p.index+1, p.Source, err)
		}
		p.bytes = uint64(n)
		return nil
	case p.Command != "":
		return c.runCommand(p)
	case p.File == "":
		p.bytes = p.Size
		return nil
	}
	fi, err := os.Stat(p.File)
	if err != nil {
		return fmt.Errorf("%w: partition %d: %s: %w", ErrPartition, p.index+1, p.File, bareError(err))
	}
	if fi.Mode().IsRegular() {
		p.bytes = uint64(fi.Size())
		return nil
	}
	f, err := nbopen.Read(p.File) // a named pipe without a writer is refused, not waited on
	if err != nil {
		return fmt.Errorf("%w: partition %d: %s: %w", ErrPartition, p.index+1, p.File, bareError(err))
	}
	defer f.Close()
	if err := c.spool(p, f); err != nil {
		return fmt.Errorf("%w: partition %d: %s: %w", ErrPartition, p.index+1, p.File, bareError(err))
	}
	return nil
}

// runCommand runs p.Command with /bin/sh -c, as popen(3) runs mkimg's,
// and spools its standard output. A command that cannot start, or exits
// other than 0, is an error naming the partition and the command; mkimg
// ignores the exit status, but a fixture whose command failed is not the
// fixture asked for.
func (c *contents) runCommand(p *placed) error {
	cmd := exec.Command("/bin/sh", "-c", p.Command)
	cmd.Dir = c.dir
	cmd.Stderr = c.stderr
	out, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		return fmt.Errorf("%w: partition %d: command %q: %w", ErrPartition, p.index+1, p.Command, err)
	}
	spoolErr := c.spool(p, out)
	if spoolErr != nil {
		out.Close() // the command gets SIGPIPE or EPIPE rather than blocking
	}
	waitErr := cmd.Wait()
	switch {
	case spoolErr != nil:
		return fmt.Errorf("%w: partition %d: command %q: %w", ErrPartition, p.index+1, p.Command, bareError(spoolErr))
	case waitErr != nil:
		return fmt.Errorf("%w: partition %d: command %q failed: %v", ErrPartition, p.index+1, p.Command, waitErr) // %v: an ExitCode method would choose the exit status
	}
	return nil
}

// spool copies r to its end into a new spool and keeps it as p's
// content, in pieces of spoolPiece that c.meter counts under the step
// "reading NAME" (of a total not known). The blocks of zeros in what r
// gives are left holes (spoolWrite), so that a spool takes the space of
// its data only, as the disk will.
func (c *contents) spool(p *placed, r io.Reader) error {
	if c.stream != nil && (!p.Absolute || c.stream.absolute) {
		return c.spoolStream(p, r)
	}
	f, err := c.newSpool()
	if err != nil {
		return err
	}
	step := c.meter.Step("reading "+p.meterName(), 0)
	buf := make([]byte, spoolPiece)
	var n int64
	for {
		m, err := io.ReadFull(r, buf)
		if werr := spoolWrite(f, buf[:m], n); werr != nil {
			return werr
		}
		n += int64(m)
		step.Add(int64(m))
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return err
		}
	}
	if err := f.Truncate(n); err != nil { // the zeros at the end, as a hole
		return err
	}
	p.spool = f
	p.bytes = uint64(n)
	return nil
}

// spoolStream reads r to its end into a new spool the container format
// makes of it (vdisk.Streamer) and keeps it as p's content, digesting
// the contents as they come when the GUID rule needs them; c.meter
// counts the bytes read under the step "reading NAME", as spool does.
func (c *contents) spoolStream(p *placed, r io.Reader) error {
	f, err := c.newSpool()
	if err != nil {
		return err
	}
	got := readCounter{step: c.meter.Step("reading "+p.meterName(), 0)}
	if c.stream.hash {
		got.digest = newContentDigest()
	}
	s, err := c.stream.f.SpoolStream(c.stream.p, f, int64(p.start)*c.stream.secsz, io.TeeReader(r, got))
	if err != nil {
		return err
	}
	p.stream, p.streamSum, p.streamFile, p.bytes = s, got.digest, f, uint64(s.Size())
	return nil
}

// readCounter adds what a stream gives to its step and its digest.
type readCounter struct {
	step   *progress.Step
	digest *contentDigest // nil when not hashed
}

func (c readCounter) Write(b []byte) (int, error) {
	if c.digest != nil {
		c.digest.Write(b)
	}
	c.step.Add(int64(len(b)))
	return len(b), nil
}

// streamSource is a container format's stream as a Source: copyTo
// writes its contents into a disk it is not linked to.
type streamSource struct {
	s    vdisk.Stream
	what string // the file or command the stream holds the output of
}

func (s streamSource) String() string { return s.what }

func (s streamSource) Size() (int64, error) { return s.s.Size(), nil }

func (s streamSource) copyTo(im *bcache.Image, off, n int64, h hash.Hash) error {
	if n != s.s.Size() {
		return fmt.Errorf("%w: the spool holds %d bytes, not %d", ErrSourceChanged, s.s.Size(), n)
	}
	return s.s.CopyTo(im, off, h)
}

// newSpool makes a new spool, unlinked where the system allows it,
// which close closes.
func (c *contents) newSpool() (*os.File, error) {
	f, err := c.place.create("partition")
	if err != nil {
		return nil, err
	}
	if os.Remove(f.Name()) == nil {
		tempfile.Forget(f.Name())
	} else {
		c.names = append(c.names, f.Name())
	}
	c.spools = append(c.spools, f)
	return f, nil
}

// spoolBlock is the unit of zeros a spool leaves as a hole.
const spoolBlock = 4096

// spoolWrite writes b at off of the spool f but for its blocks of zeros
// (whole spoolBlocks of the file), which stay holes.
func spoolWrite(f *os.File, b []byte, off int64) error {
	for i := 0; i < len(b); {
		j := min(len(b), int((off+int64(i))/spoolBlock*spoolBlock+spoolBlock-off)) // the end of i's block
		if diskio.IsZero(b[i:j]) {
			i = j
			continue
		}
		k := j // the data runs on to the next block of zeros
		for k < len(b) {
			e := min(len(b), k+spoolBlock)
			if diskio.IsZero(b[k:e]) {
				break
			}
			k = e
		}
		if _, err := f.WriteAt(b[i:k], off+int64(i)); err != nil {
			return err
		}
		i = k
	}
	return nil
}

// spoolPiece is how much spool copies between two counts.
const spoolPiece = 4 << 20

// hasContent reports whether a Source, a file or a command fills p; an
// empty partition has only its size.
func (p *placed) hasContent() bool { return p.Source != nil || p.File != "" || p.Command != "" }

// content returns the Source that fills p when the disk is written: its
// own, its spool (a command's output or a file that is not a regular
// one), or its regular file; nil for an empty partition.
func (p *placed) content() Source {
	what := p.File
	if p.Command != "" {
		what = fmt.Sprintf("command %q", p.Command)
	}
	switch {
	case p.Source != nil:
		return p.Source
	case p.stream != nil:
		return streamSource{s: p.stream, what: what}
	case p.spool != nil:
		return spoolSource{f: p.spool, what: what, consumed: &p.spoolRead}
	case p.File != "":
		return FileSource(p.File)
	}
	return nil
}

// spoolSource is a partition's spool as a Source.
type spoolSource struct {
	f        *os.File
	what     string // the file or command the spool holds the output of
	consumed *bool  // copyTo has read the spool, which gave back its space
}

func (s spoolSource) String() string { return s.what }

func (s spoolSource) Size() (int64, error) {
	fi, err := s.f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// copyTo copies the spool into the disk, in the kernel, a diskio.ReleasePiece
// at a time, each hashed into h first when h is not nil (its holes as the
// zeros they hold, unread). A disk is written once from its layout's
// spools: each piece copied gives back its space (punchHole), so that the
// spool and the disk together take little more than the disk; a second
// copy is an error.
func (s spoolSource) copyTo(im *bcache.Image, off, n int64, h hash.Hash) error {
	if *s.consumed {
		return fmt.Errorf("%w: the spool was read already", ErrSourceChanged)
	}
	*s.consumed = true
	for k := int64(0); k < n; k += diskio.ReleasePiece {
		m := min(n-k, diskio.ReleasePiece)
		if h != nil {
			if err := hashData(h, s.f, k, k+m, nil); err != nil {
				return err
			}
		}
		if _, err := s.f.Seek(k, io.SeekStart); err != nil {
			return err
		}
		if err := im.CopyFrom(off+k, s.f, m); err != nil {
			if errors.Is(err, bcache.ErrShortSrc) {
				err = fmt.Errorf("%w: the spool ended before %d bytes", ErrSourceChanged, n)
			}
			return err
		}
		diskio.PunchHole(s.f, k, m)
	}
	return nil
}
