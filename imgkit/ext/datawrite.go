package ext

import (
	"sync"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
)

// dataWriter writes files' data into the image on a goroutine of its
// own, so that the layout reads and scans a file's next chunk while the
// last one is written: the one-pass layout's reads and the image's
// writes overlap. Writes go in the order they were queued; the first
// error stops the writes that follow and is what close returns.
type dataWriter struct {
	im   *bcache.Image
	jobs chan *dataChunk
	free chan *dataChunk
	wg   sync.WaitGroup
	mu   sync.Mutex
	err  error
}

// dataChunk is a read buffer and the runs of it that go into the image.
type dataChunk struct {
	buf  []byte
	runs []imageRun
}

// imageRun is buf[at:at+n] written at the image's byte off.
type imageRun struct{ at, n, off int64 }

// dataBuffers is how many read chunks are in flight: one filled by the
// layout, the others queued or being written.
const dataBuffers = 3

func newDataWriter(im *bcache.Image) *dataWriter {
	d := &dataWriter{im: im, jobs: make(chan *dataChunk, dataBuffers), free: make(chan *dataChunk, dataBuffers)}
	for range dataBuffers {
		d.free <- &dataChunk{buf: make([]byte, readChunk)}
	}
	d.wg.Add(1)
	go d.run()
	return d
}

func (d *dataWriter) run() {
	defer d.wg.Done()
	for c := range d.jobs {
		if d.failed() == nil {
			err := d.im.Guard(func() error {
				for _, r := range c.runs {
					if _, err := d.im.WriteAt(c.buf[r.at:r.at+r.n], r.off); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				d.mu.Lock()
				d.err = &imageWriteError{err}
				d.mu.Unlock()
			}
		}
		c.runs = c.runs[:0]
		d.free <- c
	}
}

// failed returns the first write's error, if any.
func (d *dataWriter) failed() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.err
}

// get returns a chunk to read into, once one is free.
func (d *dataWriter) get() (*dataChunk, error) {
	c := <-d.free
	return c, d.failed()
}

// put queues c's runs to be written; c is free again after.
func (d *dataWriter) put(c *dataChunk) {
	if len(c.runs) == 0 {
		d.free <- c
		return
	}
	d.jobs <- c
}

// close waits for the writes queued and returns the first error.
func (d *dataWriter) close() error {
	close(d.jobs)
	d.wg.Wait()
	return d.failed()
}

// imageWriteError is a write of the image that failed, reported when the
// layout next takes a buffer, maybe for another file than the one whose
// data it was: it names the image, not a file of the tree.
type imageWriteError struct{ err error }

func (e *imageWriteError) Error() string { return e.err.Error() }

func (e *imageWriteError) Unwrap() error { return e.err }
