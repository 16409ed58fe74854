package tooltest

import (
	"fmt"
	"testing"
)

// TestSample checks that Sample keeps one case in every k, from case 0,
// without FIXTUREGEN_LONG, and every case with FIXTUREGEN_LONG=1. It is
// not parallel: it sets FIXTUREGEN_LONG with t.Setenv.
func TestSample(t *testing.T) {
	for _, long := range []string{"", "0", "1"} {
		t.Setenv(LongEnv, long)
		if Long() != (long == "1") {
			t.Errorf("%s=%q: Long() = %v", LongEnv, long, Long())
		}
		for _, k := range []int{0, 1, 3} {
			var kept []int
			for i := range 7 {
				if Sample(i, k) {
					kept = append(kept, i)
				}
			}
			want := 7
			if long != "1" && k == 3 {
				want = 3 // 0, 3, 6
			}
			if len(kept) != want || kept[0] != 0 {
				t.Errorf("%s=%q, k=%d: Sample keeps %v", LongEnv, long, k, kept)
			}
		}
	}
}

// TestSampler checks that a Sampler keeps every k-th case and each case
// with a value not kept before, and every case with FIXTUREGEN_LONG=1. It
// is not parallel: it sets FIXTUREGEN_LONG with t.Setenv.
func TestSampler(t *testing.T) {
	cases := [][]string{{"a=1"}, {"a=1"}, {"a=2"}, {"a=1"}, {"a=1"}, {"a=2", "b=1"}, {"a=1"}, {"a=2"}}
	for _, c := range []struct {
		long string
		want []int
	}{
		{"", []int{0, 2, 3, 5, 6}}, // 0, 3 and 6 every third; 2 brings a=2, 5 b=1
		{"1", []int{0, 1, 2, 3, 4, 5, 6, 7}},
	} {
		t.Setenv(LongEnv, c.long)
		s := NewSampler(3)
		var kept []int
		for i, v := range cases {
			if s.Keep(v...) {
				kept = append(kept, i)
			}
		}
		if fmt.Sprint(kept) != fmt.Sprint(c.want) {
			t.Errorf("%s=%q: kept %v, want %v", LongEnv, c.long, kept, c.want)
		}
	}
}

// TestPick checks that Pick takes the variants in turn by default and
// keeps them all with FIXTUREGEN_LONG=1. It is not parallel: it sets
// FIXTUREGEN_LONG with t.Setenv.
func TestPick(t *testing.T) {
	vs := []string{"a", "b", "c"}
	t.Setenv(LongEnv, "")
	var got []string
	for k := range 5 {
		got = append(got, Pick(k, vs)...)
	}
	if fmt.Sprint(got) != "[a b c a b]" {
		t.Errorf("Pick in turn: %v", got)
	}
	if p := Pick(7, vs[:1]); len(p) != 1 {
		t.Errorf("Pick of one variant: %v", p)
	}
	t.Setenv(LongEnv, "1")
	if p := Pick(4, vs); len(p) != 3 {
		t.Errorf("Pick with %s=1: %v", LongEnv, p)
	}
}
