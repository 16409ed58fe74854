//go:build !unix

package tooltest

// toTerminal does nothing where there is no /dev/tty: the note reaches
// standard output only (go test -v shows it).
func toTerminal(string) {}
