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

// ShortSample reports whether case i (counting from 0) of a table runs
// under testing.Short, which CI's -race run sets: every case without
// -short, and otherwise those with i%k == 0. The race run looks for data
// races, which a few cases of a comparison table find as well as all of
// them; the long run, without -short, compares every case. A k below 2
// keeps every case.
func ShortSample(i, k int) bool { return Thin(i, 1, k) }

// Thin reports whether case i (counting from 0) of a comparison table
// runs: every case under Long (CI's long run), those with i%short == 0
// under testing.Short (the race run), and those with i%def == 0
// otherwise (`go test ./...`, kept quick). A step below 2 keeps every
// case.
func Thin(i, def, short int) bool {
	k := def
	switch {
	case Long():
		return true
	case testing.Short():
		k = short
	}
	return k < 2 || i%k == 0
}

// Pick returns the variants that case k (counting from 0) of a sweep
// runs in, for a sweep that runs each case in several variants (with
// several tools, formats or option sets): all of them under Long;
// otherwise the one at k modulo their number, so that each variant still
// runs on one case in every len(variants).
func Pick[T any](k int, variants []T) []T {
	if Long() || len(variants) < 2 {
		return variants
	}
	i := k % len(variants)
	return variants[i : i+1]
}

// Sampled logs, for a sweep that ran ran of its all cases, that it ran a
// sample and how to run the rest; it logs nothing when every case ran.
func Sampled(t testing.TB, ran, all int) {
	t.Helper()
	if ran < all {
		t.Logf("ran a sample of %d of %d cases; %s=1 runs them all", ran, all, LongEnv)
	}
}

// A Sampler picks the cases of a sweep that run, one at a time, in the
// sweep's order: every case under Long; otherwise one in every k (those
// Sample picks) and any case with a value that no case picked before it
// has, so that a sample of a sweep drawn at random still holds every
// value of every dimension that the whole sweep holds. A value names its
// dimension, as "size=1m" or "tree=deep". The zero Sampler keeps every
// case.
type Sampler struct {
	k        int
	seen     map[string]bool
	ran, all int
}

// NewSampler returns a Sampler that keeps one case in every k besides
// those with new values.
func NewSampler(k int) *Sampler { return &Sampler{k: k} }

// Keep reports whether the next case, whose values are values, runs.
func (s *Sampler) Keep(values ...string) bool {
	keep := Sample(s.all, s.k)
	s.all++
	for _, v := range values {
		if !s.seen[v] {
			keep = true
		}
	}
	if !keep {
		return false
	}
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	for _, v := range values {
		s.seen[v] = true
	}
	s.ran++
	return true
}

// Log logs, as Sampled does, how many of the cases offered to Keep ran.
func (s *Sampler) Log(t testing.TB) {
	t.Helper()
	Sampled(t, s.ran, s.all)
}
