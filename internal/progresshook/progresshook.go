// Package progresshook lets this module's tests hold long work at a point
// of a progress step, so that a test of a status line can see a figure
// mid-way without depending on timing: progress.Step.Add calls the hook a
// test sets, on the goroutine doing the work, with the step's figures
// after the add, and the work waits until the hook returns.
package progresshook

import "sync/atomic"

// hook is the function Set installed, or nil.
var hook atomic.Pointer[func(name string, done, total int64)]

// Set makes every progress.Step.Add call fn until restore is called. fn
// runs on the goroutines doing the work, maybe on several at once. Set is
// for tests that do not run in parallel with others: the hook sees the
// adds of every meter in the process.
func Set(fn func(name string, done, total int64)) (restore func()) {
	hook.Store(&fn)
	return func() { hook.Store(nil) }
}

// Added calls the hook Set installed, if any, with a step's figures after
// an add.
func Added(name string, done, total int64) {
	if f := hook.Load(); f != nil {
		(*f)(name, done, total)
	}
}
