package mkimg

import (
	"os"
	"path/filepath"
	"runtime"
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

// TestInputsOffset checks the names Inputs and OptionalInputs give for
// FILE:[+]OFFSET: the file before the colon with the whole name optional
// while no file has the whole name, the whole name alone once one does
// (where names may hold colons), and no split of a tail that is no offset
// or that crosses a folder.
func TestInputsOffset(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	root := filepath.Join(dir, "root.img")
	if err := os.WriteFile(root, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(spec string, in, optional []string) {
		t.Helper()
		o, err := Parse([]string{"-s", "gpt", "-p", spec, "-b", root})
		if err != nil {
			t.Fatal(err)
		}
		if got := o.Inputs(); !slices.Equal(got, in) {
			t.Errorf("-p %s: Inputs() = %q, want %q", spec, got, in)
		}
		if got := o.OptionalInputs(); !slices.Equal(got, optional) {
			t.Errorf("-p %s: OptionalInputs() = %q, want %q", spec, got, optional)
		}
	}
	check("freebsd-ufs:="+root+":1m", []string{root}, []string{root + ":1m"})
	check("freebsd-ufs:="+root+":+64k", []string{root}, []string{root + ":+64k"})
	check("efi:="+filepath.Join(dir, "a:b"), []string{filepath.Join(dir, "a:b"), root}, nil)
	check("efi:="+filepath.Join(dir, "x:1m", "root.img"), []string{filepath.Join(dir, "x:1m", "root.img"), root}, nil)
	if runtime.GOOS == "windows" {
		return // a colon names a stream of the file before it
	}
	if err := os.WriteFile(root+":1m", []byte("y"), 0o644); err != nil {
		t.Fatal(err)
	}
	check("freebsd-ufs:="+root+":1m", []string{root + ":1m", root}, nil)
}

// TestOutputArg checks the index Parse gives of -o's value: a word of its
// own after options that take values or none, long ones included, and 0
// for an attached value or no -o.
func TestOutputArg(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"-s", "gpt", "-p", "efi:=a", "-o", "d.img"}, 5},
		{[]string{"-y", "-o", "d.img", "-sgpt"}, 2},
		{[]string{"-yvo", "d.img"}, 1},
		{[]string{"-b", "-o", "-o", "d.img"}, 3}, // -b takes "-o" as its file
		{[]string{"--capacity", "1m", "-o", "x", "-p", "efi::1k"}, 3},
		{[]string{"--capacity=1m", "-o", "x"}, 2},
		{[]string{"-od.img", "-s", "gpt"}, 0},
		{[]string{"-s", "gpt", "-p", "efi::1k"}, 0},
	} {
		o, err := Parse(tc.args)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.args, err)
		}
		if o.OutputArg != tc.want {
			t.Errorf("Parse(%q).OutputArg = %d, want %d", tc.args, o.OutputArg, tc.want)
		}
	}
}
