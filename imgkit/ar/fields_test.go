package ar

import (
	"bytes"
	"strings"
	"testing"
)

// TestMatch checks that Match accepts regular and thin archives by their
// magic and nothing shorter, and that Describe gives what the format
// contract asks: a summary of the Reader and each member's header offset
// as the listing's column.
func TestMatch(t *testing.T) {
	t.Parallel()
	arc := sample(t, nil, "a.o", "a\n", "b.o", "b\n")
	for _, tc := range []struct {
		head string
		want bool
	}{
		{string(arc), true}, {magic, true}, {thinMagic, true}, {thinMagic + "x", true},
		{magic[:magicLen-1], false}, {"!<bout>\n", false}, {"", false}, {" " + magic, false},
	} {
		if got := Match([]byte(tc.head)); got != tc.want {
			t.Errorf("Match(%.10q) = %v, want %v", tc.head, got, tc.want)
		}
	}
	d := Describe()
	if err := d.Check(); err != nil || d.Name != "ar" || d.Fields == nil || d.Summary == nil || d.Column == nil {
		t.Fatalf("Describe() = %+v, %v", d, err)
	}
	fsys, err := d.Open(bytes.NewReader(arc), int64(len(arc)))
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Summary(fsys); !strings.HasSuffix(got, " layout, index none") {
		t.Errorf("Summary = %q", got)
	}
	fi, err := fsys.(*Reader).Stat("b.o")
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Column(fi); got != "@0x46" {
		t.Errorf("Column(b.o) = %q, want @0x46 (8 + 60 + 2)", got)
	}
}
