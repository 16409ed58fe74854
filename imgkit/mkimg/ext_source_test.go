package mkimg_test

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/ext"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/inspect"
	"github.com/fixturegen/fixturegen/imgkit/mkimg"
	"github.com/fixturegen/fixturegen/imgkit/msdos"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// linuxRoot is a small Linux root tree: nested directories, an empty
// file, one of several blocks and one past ext2's twelve direct blocks
// of 1 KiB, so that it takes an indirect block.
var linuxRoot = fstest.MapFS{
	"etc/hostname":       {Data: []byte("fixture\n"), Mode: 0o644},
	"etc/os-release":     {Data: []byte("ID=fixture\nVERSION_ID=1\n"), Mode: 0o644},
	"usr/bin/init":       {Data: bytes.Repeat([]byte{0x7f, 'E', 'L', 'F', 1, 2, 3}, 3000), Mode: 0o755},
	"usr/lib/os-release": {Data: []byte("ID=fixture\n"), Mode: 0o644},
	"var/empty":          {Data: nil, Mode: 0o600},
	"srv":                {Mode: fs.ModeDir | 0o755},
}

// linuxESP is the EFI system partition beside it.
var linuxESP = fstest.MapFS{
	"EFI/BOOT/BOOTX64.EFI": {Data: bytes.Repeat([]byte("MZ boot "), 500), Mode: 0o644},
}

// extOpts are the root file system's options: ext3 (a journal) of 8 MiB
// at a fixed time, with its UUID and hash seed derived.
func extOpts() *ext.Options {
	return &ext.Options{Type: "ext3", Size: 8 << 20, Timestamp: time.Unix(1700000000, 0), ClampTimes: true}
}

// TestExtSourceDisk builds an ESP + ext3 root GPT disk in one step from
// MSDOSSource and ExtSource and checks that the root partition's bytes
// are ext.Build's of the same tree and options, that e2fsck -fn finds
// nothing wrong in them, that the disk's reader lists the tree under p2,
// and that the disk is the one a ReaderSource of those bytes gives (the
// derived GUIDs included), with -y and without.
func TestExtSourceDisk(t *testing.T) {
	t.Parallel()
	want, err := ext.Build(fstree.FS(linuxRoot), extOpts())
	if err != nil {
		t.Fatal(err)
	}
	espOpts := &msdos.Options{FATType: 16}
	dir := t.TempDir()
	for _, y := range []bool{false, true} {
		disk := filepath.Join(dir, "disk.img")
		err := mkimg.WriteFile(disk, &mkimg.Options{Scheme: "gpt", FreeBSDTestMode: y, Partitions: []mkimg.Partition{
			{Type: "efi", Label: "ESP", Source: mkimg.MSDOSSource(fstree.FS(linuxESP), espOpts)},
			{Type: "linux-root-x86-64", Label: "root", Source: mkimg.ExtSource(fstree.FS(linuxRoot), extOpts())},
		}})
		if err != nil {
			t.Fatal(err)
		}
		d, err := mkimg.OpenReader(disk)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		parts := d.Table().Partitions
		if len(parts) != 2 || parts[1].Type != "linux-root-x86-64" || parts[1].Size != int64(len(want)) {
			t.Fatalf("-y=%v: partitions %+v; want the second linux-root-x86-64 of %d bytes", y, parts, len(want))
		}
		p2, err := d.Partition(2)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(p2)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("-y=%v: partition 2 differs from ext.Build's image (first at byte %d)", y, firstDiff(got, want))
		}
		if !y {
			part := filepath.Join(dir, "root.ext3")
			if err := os.WriteFile(part, got, 0o644); err != nil {
				t.Fatal(err)
			}
			e2fsckClean(t, part)
			listsTree(t, d.FS(inspect.Detect), "p2", linuxRoot)
		}

		// The same bytes from a reader make the same disk.
		fromBytes, err := mkimg.Build(&mkimg.Options{Scheme: "gpt", FreeBSDTestMode: y, Partitions: []mkimg.Partition{
			{Type: "efi", Label: "ESP", Source: mkimg.MSDOSSource(fstree.FS(linuxESP), espOpts)},
			{Type: "linux-root-x86-64", Label: "root", Source: mkimg.ReaderSource(bytes.NewReader(want), int64(len(want)))},
		}})
		if err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(disk); err != nil || !bytes.Equal(b, fromBytes) {
			t.Errorf("-y=%v: the disk from ExtSource differs from the one from the image's bytes (%v)", y, err)
		}
	}
}

// firstDiff returns the first offset where a and b differ.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// e2fsckClean runs the reference e2fsck -fn on img and fails on any
// complaint.
func e2fsckClean(t *testing.T, img string) {
	t.Helper()
	bin := tooltest.Need(t, "e2fsck-1.47.4")
	out, err := exec.Command(bin, "-fn", img).CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	if err != nil {
		t.Errorf("e2fsck -fn: %v\n%s", err, out)
	}
}

// listsTree checks that the directory root of fsys holds exactly the
// paths of tree (and ext's lost+found), each regular file with its
// contents.
func listsTree(t *testing.T, fsys fs.FS, root string, tree fstest.MapFS) {
	t.Helper()
	var got []string
	err := fs.WalkDir(fsys, root, func(p string, de fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel := strings.TrimPrefix(p, root+"/")
		got = append(got, rel)
		if de.Type().IsRegular() {
			b, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			if !bytes.Equal(b, tree[rel].Data) {
				t.Errorf("%s: %d bytes read back, want %d", p, len(b), len(tree[rel].Data))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"lost+found"}
	for p := range tree {
		for d := p; d != "."; d = filepath.Dir(d) {
			if !slices.Contains(want, d) {
				want = append(want, d)
			}
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s lists %q, want %q", root, got, want)
	}
}

// TestExtSourceErrors checks that an ExtSource without a Size, and one
// whose options ext refuses, fail the disk with one line naming the
// partition and ext's error, leaving nothing at the output.
func TestExtSourceErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		opts *ext.Options
		want string
	}{
		{"nil options", nil, "partition 2: ext file system: ext: bad option: Size must be given"},
		{"no size", &ext.Options{Type: "ext2"}, "partition 2: ext file system: ext: bad option: Size must be given"},
		{"bad block size", &ext.Options{Size: 4 << 20, BlockSize: 512}, "partition 2: ext file system: ext: bad option: BlockSize 512"},
	} {
		out := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".img")
		err := mkimg.WriteFile(out, &mkimg.Options{Scheme: "gpt", Partitions: []mkimg.Partition{
			{Type: "efi", Size: 4096},
			{Type: "linux-data", Source: mkimg.ExtSource(fstree.FS(linuxRoot), tc.opts)},
		}})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ext.ErrOption) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v, want one line with %q wrapping ext.ErrOption", tc.name, err, tc.want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%d files left in the output directory", len(ents))
	}
}
