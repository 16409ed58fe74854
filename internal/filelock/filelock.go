// Package filelock takes and drops an exclusive advisory lock on an open
// file without waiting: flock(2) on Unix, LockFileEx on Windows. The lock
// belongs to the open file and goes when it is closed or the process
// ends, however it ends, so a lock that can be taken tells that no live
// process holds the file. The catalogue's lock file and the temporary
// files of every command (internal/tempfile) use it.
package filelock

// Supported reports whether this system has the locks TryLock takes; where
// it has none, TryLock always succeeds and tells nothing.
const Supported = supported
