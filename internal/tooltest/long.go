package tooltest

import (
	"os"
	"testing"
)

// LongEnv is the environment variable that runs the exhaustive sweeps
// whole.
const LongEnv = "FIXTUREGEN_LONG"

// Long reports whether FIXTUREGEN_LONG=1 asks for the long suite, as CI's
// long run sets it: then every case of the exhaustive sweeps (generated
// command-line matrices, corruption sweeps, random option sets, archive
// tool comparisons) runs. Without it a sweep runs a fixed sample of its
// cases, the same in every run and on every machine, that still covers
// each scheme, format or kind it sweeps, so that `go test ./...` stays
// quick enough to run often; testing.Short (the -race -short run) samples
// less again where a test says so. It is an environment variable rather
// than a flag because `go test ./...` passes a flag to every package,
// and one that a package does not define fails it.
func Long() bool { return os.Getenv(LongEnv) == "1" }

// Sample reports whether case i (counting from 0) of a sweep runs when
// one case in every k is enough by default: every case under Long, and
// otherwise those with i%k == 0, so that the sample is spread evenly
// over the sweep and is the same in every run. A k below 2 keeps every
// case.
func Sample(i, k int) bool { return Long() || k < 2 || i%k == 0 }

// Sampled logs, for a sweep that ran ran of its all cases, that it ran a
// sample and how to run the rest; it logs nothing when every case ran.
func Sampled(t testing.TB, ran, all int) {
	t.Helper()
	if ran < all {
		t.Logf("ran a sample of %d of %d cases; %s=1 runs them all", ran, all, LongEnv)
	}
}
