//go:build !linux

package ffs

// physicalMemory is the machine's RAM in bytes, or 0 when unknown, as it is
// here.
func physicalMemory() int64 { return 0 }
