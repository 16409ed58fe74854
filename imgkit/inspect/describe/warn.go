package describe

import "io/fs"

// A Warner is a file system, as a format's Open returns it, that can say
// what its reader read past: a volume or partition that runs past the
// image's end, a partition of a format no reader here reads, a damaged
// table read from its backup. Each warning is one sentence naming the
// structure (and the byte, where there is one); a listing shows what is
// there and the warnings beside it. A Warner reports what it has read so
// far, so a caller asks after walking it.
type Warner interface {
	Warnings() []string
}

// Warnings returns fsys's warnings when it is a Warner, else nil.
func Warnings(fsys fs.FS) []string {
	if w, ok := fsys.(Warner); ok {
		return w.Warnings()
	}
	return nil
}
