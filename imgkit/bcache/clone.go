package bcache

import (
	"os"
	"strings"
	"sync/atomic"
)

// cloneMin, when not negative, replaces the threshold of the file system
// (cloneFSTypes): the least number of bytes of whole aligned blocks that a
// piece of a file must have for CopyFiles and CopyFrom to clone them
// rather than copy them. One FICLONERANGE costs a transaction of the file
// system, more than the copy of a few blocks whose data is in the page
// cache. Tests set it to clone small files too.
var cloneMin int64 = -1

// cloneState is what an image file knows about cloning: the block size of
// its file system (0 when it does not clone: a memory image, cloning
// turned off, a file system without shared extents), the least number of
// bytes worth cloning, whether a refusal
// has turned it off since, and how many bytes it has cloned (for the
// tests).
type cloneState struct {
	bsize  int64
	least  int64 // the threshold: cloneMin or the file system's
	off    atomic.Bool
	cloned atomic.Int64
}

// envNoClone reports whether FIXTUREGEN_CACHE has the word noclone.
func envNoClone() bool {
	_, noClone, _ := parseEnv(os.Getenv(EnvMode))
	return noClone
}

// clonePiece returns where the whole blocks of the copy of n source bytes
// from srcOff to image offset off begin (head bytes in) and how many bytes
// they are (mid): 0 when the image does not clone, when the two offsets
// are not aligned alike or when fewer than cloneMin bytes would be cloned.
func (im *Image) clonePiece(off, srcOff, n int64) (head, mid int64) {
	bs := im.clone.bsize
	if bs == 0 || im.clone.off.Load() || (off-srcOff)%bs != 0 {
		return 0, 0
	}
	head = (bs - off%bs) % bs
	if head >= n {
		return 0, 0
	}
	mid = (n - head) &^ (bs - 1)
	if mid < im.clone.least || mid == 0 {
		return 0, 0
	}
	return head, mid
}

// cloneBytes returns how many bytes of fc CopyFiles would clone, which
// preallocateBatch leaves out, since allocating blocks that a clone then
// frees is wasted work.
func (im *Image) cloneBytes(fc *FileCopy) int64 {
	if fc.Path == "" {
		return 0
	}
	_, mid := im.clonePiece(fc.Off, fc.SrcOff, fc.N)
	return mid
}

// cloneWorthy reports whether CopyFiles would clone part of fc, which then
// copies on its own instead of in a run with the files beside it.
func (im *Image) cloneWorthy(fc *FileCopy) bool {
	return im.cloneBytes(fc) > 0
}

// parseEnv parses a FIXTUREGEN_CACHE value: comma-separated words, at most
// one of them a mode (auto, mmap, copy) and the others clone or noclone
// (the last of which wins).
func parseEnv(s string) (Mode, bool, error) {
	mode, noClone, haveMode := ModeAuto, false, false
	for _, w := range strings.Split(s, ",") {
		switch w = strings.TrimSpace(w); w {
		case "clone", "noclone":
			noClone = w == "noclone"
		default:
			m, err := parseModeWord(w)
			if err != nil || (haveMode && w != "") {
				return ModeAuto, false, errModeWord(s)
			}
			if w != "" {
				mode, haveMode = m, true
			}
		}
	}
	return mode, noClone, nil
}
