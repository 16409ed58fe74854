package msdos

import (
	"slices"
	"testing"
)

// TestOptionsFiles checks that Files names the bootstrap WriteFile reads:
// a bare name in /boot, any other path as given, nothing without one.
func TestOptionsFiles(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		bootstrap string
		want      []string
	}{
		{"", nil},
		{"boot1", []string{"/boot/boot1"}},
		{"dir/boot1", []string{"dir/boot1"}},
		{"/abs/boot1", []string{"/abs/boot1"}},
	} {
		o := Options{Bootstrap: c.bootstrap}
		if got := o.Files(); !slices.Equal(got, c.want) {
			t.Errorf("Bootstrap %q: Files = %q, want %q", c.bootstrap, got, c.want)
		}
	}
}
