//go:build !unix

package bcache

import "time"

// cpuTime is not measured here; the benchmarks fall back to the wall clock.
func cpuTime() time.Duration { return 0 }
