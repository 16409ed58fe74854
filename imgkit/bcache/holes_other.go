//go:build !linux

package bcache

import "os"

// holesSupported says that dataRun can find holes here: only on Linux,
// where it has been tested.
const holesSupported = false

// mayHaveHoles reports false: holes are looked for on Linux only.
func mayHaveHoles(string) bool { return false }

// dataRun reports all of [off, end) as data.
func dataRun(_ *os.File, off, end int64) (lo, hi int64) { return off, end }
