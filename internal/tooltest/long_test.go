package tooltest

import "testing"

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
