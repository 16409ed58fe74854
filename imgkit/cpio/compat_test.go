package cpio

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// makeTree makes a tree of every kind of entry GNU cpio writes: files of
// sizes around the 4-byte padding, an empty file, folders, a hard-link set
// of three in two folders, a set of two, symbolic links (one starting
// "./"), a FIFO, and devices when the test runs as root. Names include
// "a-b" beside "a/" so that the order of find | sort differs from a
// folder-by-folder walk.
func makeTree(t *testing.T, seed int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tree")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "a", "deep", "er"), 0o755))
	must(os.MkdirAll(filepath.Join(dir, "b"), 0o750))
	for i := 0; i < 6+seed; i++ {
		name := filepath.Join(dir, "a", fmt.Sprintf("f%d", i))
		must(os.WriteFile(name, bytes.Repeat([]byte{byte('a' + i)}, i*(seed+1)+i%3), 0o644))
	}
	must(os.WriteFile(filepath.Join(dir, "a-b"), []byte("dash\n"), 0o600))
	must(os.WriteFile(filepath.Join(dir, "empty"), nil, 0o644))
	must(os.WriteFile(filepath.Join(dir, "x.sh"), []byte("#!/bin/sh\necho hi\n"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "a", "deep", "er", "big"), bytes.Repeat([]byte("0123456789abcdef"), 700+seed), 0o644))
	must(os.WriteFile(filepath.Join(dir, "link1"), []byte("linked data\x00\xff"), 0o644))
	must(os.Link(filepath.Join(dir, "link1"), filepath.Join(dir, "a", "link2")))
	must(os.Link(filepath.Join(dir, "link1"), filepath.Join(dir, "b", "link3")))
	must(os.WriteFile(filepath.Join(dir, "b", "pair1"), []byte("pair"), 0o644))
	must(os.Link(filepath.Join(dir, "b", "pair1"), filepath.Join(dir, "pair2")))
	must(os.Symlink("a/f1", filepath.Join(dir, "sym")))
	must(os.Symlink("./a//deep", filepath.Join(dir, "symdot")))
	must(os.Symlink("/nowhere/at/all", filepath.Join(dir, "symabs")))
	tooltest.Mkfifo(t, filepath.Join(dir, "fifo"))
	if os.Geteuid() == 0 {
		must(syscall.Mknod(filepath.Join(dir, "null"), syscall.S_IFCHR|0o666, int(fstree.Mkdev(1, 3))))
		must(syscall.Mknod(filepath.Join(dir, "blk"), syscall.S_IFBLK|0o600, int(fstree.Mkdev(259, 70000))))
	}
	when := time.Unix(1700000000+int64(seed), 0)
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode()&os.ModeSymlink == 0 {
			os.Chtimes(p, when, when)
		}
		return nil
	})
	return dir
}

// findSorted returns the names "find . | LC_ALL=C sort" prints in dir.
func findSorted(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			names = append(names, ".")
		} else {
			names = append(names, "./"+filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	return names
}

// gnuCpio runs GNU cpio -o in dir with the name list names and args.
func gnuCpio(t *testing.T, dir string, names []string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("cpio", append([]string{"-o", "--quiet"}, args...)...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(strings.Join(names, "\n") + "\n")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("cpio %v: %v: %s", args, err, errb.String())
	}
	return out.Bytes()
}

// identityCases are the option sets compared with GNU cpio, as its
// command line and as Options.
var identityCases = []struct {
	args []string
	opts Options
}{
	{[]string{"-H", "newc", "--reproducible"}, Options{}},
	{[]string{"-H", "crc", "--reproducible"}, Options{Format: FormatCRC}},
	{[]string{"-H", "odc", "--reproducible"}, Options{Format: FormatODC}},
	{[]string{"-H", "newc", "--reproducible", "-B"}, Options{BlockSize: 5120}},
	{[]string{"-H", "crc", "--reproducible", "--block-size=3"}, Options{Format: FormatCRC, BlockSize: 1536}},
	{[]string{"-H", "newc", "--reproducible", "-C", "1"}, Options{BlockSize: 1}},
	{[]string{"-H", "odc", "--reproducible", "-C", "100"}, Options{Format: FormatODC, BlockSize: 100}},
	{[]string{"-H", "newc", "--reproducible", "-R", "1234:567"}, Options{UID: ptr(1234), GID: ptr(567)}},
	{[]string{"-H", "newc", "--renumber-inodes"}, Options{HostDevices: true}},
	{[]string{"-H", "newc"}, Options{HostDevices: true, HostInodes: true}},
	{[]string{"-H", "crc", "--reproducible", "-L"}, Options{Format: FormatCRC, Dereference: true}},
}

func ptr(v uint32) *uint32 { return &v }

// TestIdentityGNU compares the bytes of NewPlan (the name-list path), of
// the streaming Writer and, for --reproducible option sets, of Build (the
// tree path) with GNU cpio's for the same names and options, on trees of
// three seeds.
func TestIdentityGNU(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "cpio")
	for seed := 0; seed < 3; seed++ {
		dir := makeTree(t, seed)
		names := findSorted(t, dir)
		for _, c := range identityCases {
			names := names
			if c.opts.Dereference { // GNU cpio skips a dangling link with an error
				names = slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == "./symabs" })
			}
			want := gnuCpio(t, dir, names, c.args...)
			o := c.opts
			o.Dir = dir
			p, err := NewPlan(names, &o)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if _, err := p.WriteTo(&got); err != nil {
				t.Fatal(err)
			}
			compare(t, fmt.Sprintf("seed %d %v NewPlan", seed, c.args), got.Bytes(), want)
			got.Reset()
			w := NewWriter(&got, &o)
			for _, n := range names {
				if err := w.AddFile(n); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			compare(t, fmt.Sprintf("seed %d %v Writer", seed, c.args), got.Bytes(), want)
			if o.HostDevices || o.HostInodes || o.Dereference {
				continue
			}
			b, err := Build(fstree.Dir(dir), &c.opts)
			if err != nil {
				t.Fatal(err)
			}
			compare(t, fmt.Sprintf("seed %d %v Build", seed, c.args), b, want)
		}
	}
}

// TestIdentityPartialLinks compares with GNU cpio a list that names only
// some links of each set, so that the sets never complete and the final
// write-out (data with the earliest link) decides.
func TestIdentityPartialLinks(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "cpio")
	dir := makeTree(t, 1)
	names := []string{"b/link3", "a/f2", "link1", "b/pair1", "./a", "x.sh"}
	for _, c := range identityCases[:3] {
		want := gnuCpio(t, dir, names, c.args...)
		o := c.opts
		o.Dir = dir
		p, err := NewPlan(names, &o)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if _, err := p.WriteTo(&got); err != nil {
			t.Fatal(err)
		}
		compare(t, fmt.Sprintf("%v", c.args), got.Bytes(), want)
	}
}

// compare fails when got is not want, saying at which entry they part.
func compare(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(i-40, 0)
	t.Errorf("%s: %d bytes, GNU cpio %d; first difference at byte %#x:\n got %q\nwant %q", what, len(got), len(want), i,
		got[lo:min(i+40, len(got))], want[lo:min(i+40, len(want))])
}
