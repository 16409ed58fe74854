//go:build !linux

package main

import "errors"

// loopMount needs Linux.
func loopMount(string, string) (string, func(), error) {
	return "", nil, errors.New("-mount needs Linux")
}

// sharesExtents is false: the clone rows are measured on Linux only.
func sharesExtents(string) bool { return false }

// fsName is not known here.
func fsName(string) string { return "unknown file system" }
