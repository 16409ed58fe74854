package bcache

import (
	"errors"
	"testing"
)

// TestParseModeWords parses FIXTUREGEN_CACHE values with the clone words:
// one mode at most, clone and noclone beside it (the last one wins).
func TestParseModeWords(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in      string
		mode    Mode
		noClone bool
	}{
		{"", ModeAuto, false},
		{"noclone", ModeAuto, true},
		{"mmap,noclone", ModeMmap, true},
		{"noclone, copy", ModeCopy, true},
		{"copy,noclone,clone", ModeCopy, false},
		{"clone", ModeAuto, false},
		{"auto,noclone", ModeAuto, true},
	} {
		m, noClone, err := parseEnv(c.in)
		if err != nil || m != c.mode || noClone != c.noClone {
			t.Errorf("parseEnv(%q) = %v, %v, %v; want %v, %v", c.in, m, noClone, err, c.mode, c.noClone)
		}
		if pm, err := ParseMode(c.in); err != nil || pm != c.mode {
			t.Errorf("ParseMode(%q) = %v, %v; want %v", c.in, pm, err, c.mode)
		}
		if o, err := ParseOptions(c.in); err != nil || o.Mode != c.mode || o.NoClone != c.noClone {
			t.Errorf("ParseOptions(%q) = %+v, %v; want mode %v, NoClone %v", c.in, o, err, c.mode, c.noClone)
		}
	}
	for _, bad := range []string{"fast", "mmap,copy", "noclone,fast", "mmap,mmap", "no-clone"} {
		if _, err := ParseMode(bad); !errors.Is(err, ErrMode) {
			t.Errorf("ParseMode(%q) = %v, want ErrMode", bad, err)
		}
	}
}
