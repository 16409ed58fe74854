//go:build !linux

package hugemem

func hugePageOf() uintptr { return 1 }
