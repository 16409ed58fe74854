package termline

import "testing"

func TestFigure(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name        string
		done, total int64
		want        string
	}{
		{"copying part.img", 512 << 20, 3 << 29, "copying part.img 512.0 MiB / 1.5 GiB (33%)"},
		{"hashing disk.img", 2 << 30, 2 << 30, "hashing disk.img 2.0 GiB / 2.0 GiB (100%)"},
		{"writing", 0, 10, "writing 0 bytes / 10 bytes (0%)"},
		{"scanning", 1536, 0, "scanning 1.5 KiB"},
		{"renaming into place", 0, 0, "renaming into place"},
		{"", 3 << 20, 0, "3.0 MiB written"},
	} {
		if got := Figure(c.name, c.done, c.total); got != c.want {
			t.Errorf("Figure(%q, %d, %d) = %q, want %q", c.name, c.done, c.total, got, c.want)
		}
	}
}
