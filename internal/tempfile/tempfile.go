// Package tempfile names and tracks the temporary files and directories of
// every fixturegen command (build, verify, makefs, ar), so that one pattern,
// ".fixturegen-tmp-*", covers them all: a file written beside its target
// (an image, an archive, fixtures.sum, a catalogue output) and a directory
// or spool file under os.TempDir. A version-control ignore list and a clean
// up after a killed run need to know only that pattern.
//
// The package also keeps the set of temporary paths this process has made
// and not yet renamed or removed, so that a command stopped by a signal can
// remove them before it exits (RemoveTracked), and so that none is made
// after that (Stop).
//
// Every file Create makes is locked (internal/filelock) while the file is
// open, and a lock goes with the process that held it, however it ends:
// a temporary file that can be locked is one no live process writes, which
// is how the next write to a target tells what a killed run left beside
// it from what a run writing at the same moment is making (Leftovers).
package tempfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/fixturegen/fixturegen/internal/filelock"
)

// Prefix starts the name of every temporary file and directory fixturegen
// makes.
const Prefix = ".fixturegen-tmp-"

// Pattern returns the os.CreateTemp pattern of a temporary file for target
// (a path or a bare word such as "verify"): Prefix, target's base name and
// "-*", the random part. A base name that is itself a temporary name keeps
// a single Prefix, so a command writing to a catalogue's temporary output
// makes ".fixturegen-tmp-a.img-1f2e-123", never a doubled prefix.
func Pattern(target string) string {
	base := strings.TrimPrefix(filepath.Base(target), Prefix)
	return Prefix + base + "-*"
}

// Is reports whether the base name of p follows Pattern.
func Is(p string) bool { return strings.HasPrefix(filepath.Base(p), Prefix) }

// Name returns a new temporary name beside target, following Pattern with
// 12 random hexadecimal digits. It creates nothing.
func Name(target string) string {
	var b [6]byte
	rand.Read(b[:])
	return filepath.Join(filepath.Dir(target), strings.TrimSuffix(Pattern(target), "*")+hex.EncodeToString(b[:]))
}

// ErrStopped is the error of Create once Stop has been called: the process
// is about to exit and makes no more temporary files.
var ErrStopped = errors.New("the process is stopping")

// Create creates a new temporary file in dir (os.TempDir when dir is "")
// named by Pattern(target), and tracks it until Forget. After Stop it
// makes nothing and fails with an error wrapping ErrStopped.
func Create(dir, target string) (*os.File, error) {
	// RemoveTracked waits for the lock: no file is made and not tracked.
	live.Lock()
	defer live.Unlock()
	if live.stopped {
		return nil, fmt.Errorf("temporary file for %s: %w", target, ErrStopped)
	}
	f, err := os.CreateTemp(dir, Pattern(target))
	if err != nil {
		return nil, err
	}
	// The file is new: nobody else holds its lock. Only a system without
	// locks, or a file system refusing them, leaves it unlocked.
	filelock.TryLock(f)
	track(f.Name())
	return f, nil
}

// live holds the temporary paths of this process not yet renamed or
// removed.
var live struct {
	sync.Mutex
	paths   map[string]bool
	stopped bool // Stop was called: nothing new is made or kept
}

// Track records that the temporary path p exists until Forget(p). After
// Stop it removes p at once instead.
func Track(p string) {
	live.Lock()
	defer live.Unlock()
	if live.stopped {
		os.RemoveAll(p)
		return
	}
	track(p)
}

// track is Track with live locked.
func track(p string) {
	if live.paths == nil {
		live.paths = map[string]bool{}
	}
	live.paths[p] = true
}

// Forget records that the temporary path p was renamed or removed.
func Forget(p string) {
	live.Lock()
	defer live.Unlock()
	delete(live.paths, p)
}

// RemoveTracked removes every tracked temporary path (with everything
// under it) and forgets them: what a command does when a signal stops it.
// A writer still using one of the files writes on to an unlinked file.
func RemoveTracked() {
	live.Lock()
	defer live.Unlock()
	removeTracked()
}

// removeTracked is RemoveTracked with live locked.
func removeTracked() {
	for p := range live.paths {
		os.RemoveAll(p)
	}
	clear(live.paths)
}

// Stop removes every tracked temporary path, as RemoveTracked does, and
// makes every later Create fail with ErrStopped and every later Track
// remove its path at once. It is for a process that a signal stops: its
// other goroutines run on for the moment before it exits, and a file one
// of them made after RemoveTracked would be left behind. It cannot be
// undone.
func Stop() {
	live.Lock()
	defer live.Unlock()
	live.stopped = true
	removeTracked()
}
