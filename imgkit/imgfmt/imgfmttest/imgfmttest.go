// Package imgfmttest holds checks that the tests of several format
// packages share.
package imgfmttest

import (
	"errors"
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
