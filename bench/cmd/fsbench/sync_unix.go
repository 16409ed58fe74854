//go:build unix

package main

import "syscall"

// settle flushes dirty pages to disk before a timed run, so that one run's
// writeback does not throttle the next.
func settle() { syscall.Sync() }
