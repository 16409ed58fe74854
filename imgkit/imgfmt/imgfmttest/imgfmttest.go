// Package imgfmttest holds checks that the tests of several format
// packages share.
package imgfmttest

import (
	"errors"
	"flag"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
)

// CheckFormatError fails t unless an err that wraps one of sentinels (a
// format's ErrFormat and its narrower sentinels) is an
// *imgfmt.FormatError of the format named format (any format when it is
// "") with a message, whose Off lies in -1..size (or is past -1, when
// In says it counts bytes of a container's disk). The
// fuzz tests call it on every error a reader returns, so that every
// refusal carries its place.
func CheckFormatError(t testing.TB, err error, size int64, format string, sentinels ...error) {
	t.Helper()
	if err == nil {
		return
	}
	wraps := false
	for _, s := range sentinels {
		wraps = wraps || errors.Is(err, s)
	}
	if !wraps {
		return
	}
	var fe *imgfmt.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("%v: wraps the format's sentinel but is no *imgfmt.FormatError", err)
	}
	if fe.Off < -1 || fe.In == "" && fe.Off > size {
		t.Fatalf("%v: FormatError.Off %d outside -1..%d", err, fe.Off, size)
	}
	if format != "" && fe.Format != format {
		t.Fatalf("%v: FormatError.Format %q, want %q", err, fe.Format, format)
	}
	if fe.Msg == "" {
		t.Fatalf("%v: FormatError without a message", err)
	}
}

// NoMinimize turns off the minimizing of new fuzz inputs
// (-test.fuzzminimizetime 0) unless the command line set it. A fuzz test
// whose seeds are images of tens of KiB calls it before f.Fuzz, which
// hands the value to the fuzzing coordinator: go test minimizes every
// input that widens coverage by trying it without each of its bytes,
// which for such an input fills the whole default minute, and the worker
// fuzzes nothing meanwhile (ext's FuzzOpen made 14 inputs in 20 s
// against 134,000 without it; ffs's FuzzReader 240 in 80 s against 1.9
// million; cd9660's FuzzOpen 22 against 0.5 million). A crashing input is
// then kept as it was found.
func NoMinimize(f *testing.F) {
	set := false
	flag.Visit(func(fl *flag.Flag) { set = set || fl.Name == "test.fuzzminimizetime" })
	if fl := flag.Lookup("test.fuzzminimizetime"); fl != nil && !set {
		if err := fl.Value.Set("0"); err != nil {
			f.Fatal(err)
		}
	}
}
