//go:build !unix

package tempfile

// openNoFollow is 0: this system's open has no such flags.
const openNoFollow = 0
