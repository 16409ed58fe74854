package bcache

import (
	"fmt"
	"runtime/debug"
	"unsafe"
)

// A FaultError reports a memory fault (SIGBUS) while accessing the mapping of
// an image, as happens when the file is truncated under the mapping or the
// file system runs out of space for a page being written.
type FaultError struct {
	Image  string // the final path of the image, or "in-memory image"
	Offset int64  // the byte offset in the image of the faulting access
	Err    error  // the runtime error reporting the fault
}

func (e *FaultError) Error() string {
	return fmt.Sprintf("writing %s at offset %#x: memory fault (the file system is out of space, or the file was truncated): %v", e.Image, e.Offset, e.Err)
}

func (e *FaultError) Unwrap() error { return e.Err }

// Guard runs fn with debug.SetPanicOnFault(true) on the calling goroutine and
// turns a fault inside the image's mapping into a *FaultError naming the
// image and the offset within it; it then restores the previous setting.
// Faults outside the mapping, and other panics, propagate unchanged. Code that
// writes to Buf.Data in mmap mode should run inside Guard (once, around the
// whole build, is enough); the Image methods guard themselves.
func (im *Image) Guard(fn func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			if fe := im.faultError(r); fe != nil {
				err = fe
				return
			}
			panic(r)
		}
	}()
	return fn()
}

// faultError converts a recovered fault at an address inside the mapping.
func (im *Image) faultError(r any) *FaultError {
	ae, ok := r.(interface {
		error
		Addr() uintptr
	})
	if !ok || len(im.data) == 0 {
		return nil
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(im.data)))
	a := ae.Addr()
	if a < base || a-base >= uintptr(len(im.data)) {
		return nil
	}
	return &FaultError{Image: im.name, Offset: int64(a - base), Err: ae}
}
