//go:build !unix

package imgfmt

// openNonblock is 0 where there are no named pipes to block on.
const openNonblock = 0
