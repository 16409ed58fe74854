package mkimg

import (
	"slices"
	"testing"
)

// TestInputs checks that Inputs lists every file a parsed command line
// reads, partitions in slot order and then the boot code, each once, and
// nothing for empty or unused slots.
func TestInputs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"-s", "gpt", "-p", "efi:=esp.img", "-p", "freebsd-ufs/root:=root.img", "-o", "disk.img"}, []string{"esp.img", "root.img"}},
		{[]string{"-s", "mbr", "-b", "boot/mbr", "-pfat32:=a.img", "-p", "-", "-p", "freebsd::1m"}, []string{"a.img", "boot/mbr"}},
		{[]string{"-s", "gpt", "-p", "efi:=same.img", "-p", "efi:=same.img", "-b", "same.img"}, []string{"same.img"}},
		{[]string{"-s", "gpt", "-p", "freebsd-swap::64k"}, nil},
	} {
		o, err := Parse(tc.args)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.args, err)
		}
		if got := o.Inputs(); !slices.Equal(got, tc.want) {
			t.Errorf("Parse(%q).Inputs() = %q, want %q", tc.args, got, tc.want)
		}
	}
}
