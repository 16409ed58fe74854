//go:build unix

package bcache

import "syscall"

// syncForBench flushes the previous run's dirty pages before a timed run.
func syncForBench() { syscall.Sync() }
