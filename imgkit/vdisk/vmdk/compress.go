package vmdk

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/internal/diskio"
	"github.com/fixturegen/fixturegen/imgkit/vdisk"
	"runtime"
	"sync"
)

// vmdkBatchGrains is how many grains one compression job reads and
// compresses: 1 MiB of 64 KiB grains, few enough channel operations for a
// large sparse disk, small enough to keep every worker busy.
const vmdkBatchGrains = 16

// grainBatch is one compression job and its result: the grains from
// first, and for each grain holding data its record in recs (ends[i] is
// where record i ends; grains[i] is its grain). raw holds the grains'
// bytes when the job brings them (a stream's, vmdk_grainspool.go); a
// disk's are read by the worker.
type grainBatch struct {
	first, count uint64
	raw          []byte
	recs         bytes.Buffer
	ends         []int
	grains       []uint64
	stored       []bool
	err          error
	done         chan struct{}
}

// compressGrains reads the grains of disk (grainBytes each), compresses
// every one holding data as a zlib stream at zlib's default level, as
// mkimg's compress2(..., Z_DEFAULT_COMPRESSION) does (but for the grains
// grainCompressor.incompressible finds, which are stored), on GOMAXPROCS
// workers, and calls emit for each in grain order with its record:
// vmdkGrainMarkerSize bytes left for the marker, then the stream, and
// whether the grain is stored (deflate's stored blocks, which
// vmdkSpool.copyTo makes again from the disk). The record is reused once
// emit returns. The output depends only on the
// disk, never on the workers' timing. At most two batches per worker are
// in flight, which bounds the memory. The disk's meter shows the step
// "compressing" of the grains' bytes, counted as each batch is emitted.
func compressGrains(disk *vdisk.Disk, grains uint64, grainBytes int, emit func(grain uint64, rec []byte, stored bool) error) error {
	step := disk.Meter.Step("compressing", int64(grains)*int64(grainBytes))
	reached := int64(0) // the grains' bytes added to step: those of the batches emitted and the holes before them
	produce := func(newBatch func() *grainBatch, send func(*grainBatch) bool) error {
		data := dataRuns{d: disk}
		for g := uint64(0); g < grains; g += vmdkBatchGrains {
			// A batch that begins in a hole begins at the data after
			// it; which grains hold data does not depend on where
			// batches begin.
			if next := data.next(int64(g) * int64(grainBytes)); next > int64(g)*int64(grainBytes) {
				if g = uint64(next) / uint64(grainBytes); g >= grains {
					return nil
				}
			}
			b := newBatch()
			b.first, b.count = g, min(vmdkBatchGrains, grains-g)
			if !send(b) {
				return nil
			}
		}
		return nil
	}
	read := func(c *grainCompressor, b *grainBatch) {
		if c.buf == nil {
			c.buf = make([]byte, vmdkBatchGrains*grainBytes)
		}
		off := int64(b.first) * int64(grainBytes)
		data := c.buf[:int(b.count)*grainBytes]
		if _, err := disk.ReadAt(data, off); err != nil {
			b.err = fmt.Errorf("mkimg: reading the raw disk at byte %d: %w", off, err)
			return
		}
		c.compress(b, data, grainBytes)
	}
	err := compressBatches(produce, read, func(b *grainBatch) error {
		start := 0
		for i := range b.ends {
			if err := emit(b.grains[i], b.recs.Bytes()[start:b.ends[i]], b.stored[i]); err != nil {
				return err
			}
			start = b.ends[i]
		}
		end := int64(b.first+b.count) * int64(grainBytes)
		step.Add(end - reached)
		reached = end
		return nil
	})
	if err == nil {
		step.Add(int64(grains)*int64(grainBytes) - reached) // the holes after the last data
	}
	return err
}

// compressBatches runs the batches produce makes (with newBatch, which
// gives an empty batch, and send, which passes one on and reports false
// once the work has stopped) through work on GOMAXPROCS workers, each
// with its own grainCompressor (whose buf work may fill), and hands each
// batch done to emit in the order it was sent. The first error of a
// batch (its err), of emit or of produce stops the work and is returned.
// At most two batches per worker are in flight, which bounds the memory;
// a batch is reused once emit returns.
func compressBatches(produce func(newBatch func() *grainBatch, send func(*grainBatch) bool) error,
	work func(*grainCompressor, *grainBatch), emit func(*grainBatch) error) error {
	workers := max(1, runtime.GOMAXPROCS(0))
	pending := make(chan *grainBatch, 2*workers)
	jobs := make(chan *grainBatch, workers)
	stop := make(chan struct{})
	pool := sync.Pool{New: func() any { return new(grainBatch) }}
	var produceErr error
	go func() {
		defer close(pending)
		defer close(jobs)
		newBatch := func() *grainBatch {
			b := pool.Get().(*grainBatch)
			b.done = make(chan struct{})
			return b
		}
		send := func(b *grainBatch) bool {
			select {
			case pending <- b:
			case <-stop:
				return false
			}
			jobs <- b
			return true
		}
		produceErr = produce(newBatch, send)
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var c grainCompressor
			for b := range jobs {
				work(&c, b)
				close(b.done)
			}
		}()
	}
	var err error
	for b := range pending {
		<-b.done
		if err == nil {
			if err = b.err; err == nil {
				err = emit(b)
			}
			if err != nil {
				close(stop)
			}
		}
		b.recs.Reset()
		b.ends, b.grains, b.stored, b.err = b.ends[:0], b.grains[:0], b.stored[:0], nil
		pool.Put(b)
	}
	wg.Wait()
	if err == nil {
		err = produceErr // set before pending was closed
	}
	return err
}

// grainCompressor is one worker's buffer of raw grains, its zlib
// writers (one per level) and its probe's output, reused from batch to
// batch.
type grainCompressor struct {
	buf   []byte
	zw    map[int]*zlib.Writer
	probe bytes.Buffer
}

// vmdkProbeBytes is how much of a grain the incompressibility probe
// deflates first.
const vmdkProbeBytes = 4096

// compress fills in batch b's records from data, its grains' bytes.
func (c *grainCompressor) compress(b *grainBatch, data []byte, grainBytes int) {
	for i := range int(b.count) {
		grain := data[i*grainBytes : (i+1)*grainBytes]
		if diskio.IsZero(grain) {
			continue
		}
		b.recs.Write(make([]byte, vmdkGrainMarkerSize))
		level, stored := zlib.DefaultCompression, c.incompressible(grain)
		if stored {
			level = zlib.NoCompression
		}
		c.deflate(&b.recs, grain, level)
		b.ends = append(b.ends, b.recs.Len())
		b.grains = append(b.grains, b.first+uint64(i))
		b.stored = append(b.stored, stored)
	}
}

// incompressible reports whether deflate's fastest level fails to shrink
// grain at all (random data, compressed files), first trying its start
// alone so that a grain that does shrink costs little more than its
// deflating. zlib's default level stores such data in stored blocks,
// and so does compress for them, at a fraction of the default level's
// search.
func (c *grainCompressor) incompressible(grain []byte) bool {
	for _, part := range [][]byte{grain[:min(len(grain), vmdkProbeBytes)], grain} {
		c.probe.Reset()
		c.deflate(&c.probe, part, zlib.BestSpeed)
		if c.probe.Len() < len(part) {
			return false
		}
	}
	return true
}

// deflate appends grain to dst as one zlib stream at level.
func (c *grainCompressor) deflate(dst *bytes.Buffer, grain []byte, level int) {
	zw := c.zw[level]
	if zw == nil {
		if c.zw == nil {
			c.zw = map[int]*zlib.Writer{}
		}
		zw, _ = zlib.NewWriterLevel(dst, level) // level is valid: no error
		c.zw[level] = zw
	} else {
		zw.Reset(dst)
	}
	zw.Write(grain) // a bytes.Buffer takes every write
	zw.Close()
}
