package fsopt

import (
	"errors"
	"testing"
)

// TestCompatRow checks that the compat row reads both values, names them
// in its error, and leaves the field alone on a bad value.
func TestCompatRow(t *testing.T) {
	t.Parallel()
	errOpt := errors.New("x: bad option")
	type opts struct{ Compat Compat }
	table := Table[opts]{CompatRow(errOpt, "whose makefs", func(o *opts) *Compat { return &o.Compat })}
	var o opts
	if err := table.Parse(&o, "compat", "debian", nil); err != nil || o.Compat != CompatDebian {
		t.Fatalf("compat=debian: %v, %v", o.Compat, err)
	}
	err := table.Parse(&o, "compat", "netbsd", nil)
	if !errors.Is(err, errOpt) || err.Error() != `x: bad option: compat="netbsd": want freebsd or debian` || o.Compat != CompatDebian {
		t.Errorf("compat=netbsd: %v (Compat %v)", err, o.Compat)
	}
	if err := table.Parse(&o, "compat", "freebsd", nil); err != nil || o.Compat != CompatFreeBSD {
		t.Errorf("compat=freebsd: %v, %v", o.Compat, err)
	}
	if h := table.Help()[0]; h.Key != "compat" || h.Default != "freebsd" || h.Letter != "" {
		t.Errorf("help row %+v", h)
	}
	if s := Compat(7).String(); s != "Compat(7)" {
		t.Errorf("Compat(7).String() = %q", s)
	}
}
