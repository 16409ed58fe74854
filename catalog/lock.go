package catalog

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/fixturegen/fixturegen/internal/filelock"
)

// lockRetry is how often a run waiting for another's lock tries again.
const lockRetry = 20 * time.Millisecond

// lock takes the catalogue's lock (an exclusive lock on .fixturegen-lock),
// waiting while another run holds it, until ctx is done. waiting, when not
// nil, is called once if the lock is held by another run.
//
// A lock file that is a symbolic link is an error: opening it would create
// or lock the file it leads to, which may be outside the catalogue.
func lock(ctx context.Context, dir string, waiting func()) (unlock func(), err error) {
	name := filepath.Join(dir, LockName)
	if fi, err := os.Lstat(name); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s is a symbolic link; remove it (a run makes the lock file itself)", name)
	}
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	for first := true; ; first = false {
		ok, err := filelock.TryLock(f)
		if err != nil {
			f.Close()
			return nil, err
		}
		if ok {
			return func() { filelock.Unlock(f); f.Close() }, nil
		}
		if first && waiting != nil {
			waiting()
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(lockRetry):
		}
	}
}
