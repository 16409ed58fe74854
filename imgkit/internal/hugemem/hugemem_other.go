//go:build !linux

package hugemem

// Alloc returns n bytes of zeros: make's, on systems other than Linux.
func Alloc(n int) Buffer {
	if n <= 0 {
		return Buffer{}
	}
	return Buffer{Bytes: make([]byte, n)}
}
