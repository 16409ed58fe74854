package makefs_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/cd9660"
	"github.com/fixturegen/fixturegen/imgkit/ffs"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/makefs"
	"github.com/fixturegen/fixturegen/imgkit/msdos"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestMapFSBuildsTheCLIsBytes checks fstree.FS's assumptions against the
// command line: ffs.Build (UFS1 and UFS2), cd9660.Build with Rock Ridge
// and msdos.Build of a testing/fstest.MapFS give the bytes makefs gives
// for the same tree written to disk with the modes a tree made under
// umask 022 has (directories 0755, files 0644), owned by root, with -T.
// The MapFS leaves most modes unsaid and synthesises its directories
// (reporting them as 0555), so this fails when fstree.FS takes a made-up
// mode as given.
func TestMapFSBuildsTheCLIsBytes(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		tooltest.Missing(t, "a tree on disk owned by 0:0, as a MapFS's is taken to be, needs root")
	}
	mapfs := fstest.MapFS{
		"README":            {Data: []byte("read me\n")},
		"bin/run.sh":        {Data: []byte("#!/bin/sh\necho hi\n"), Mode: 0o755},
		"etc/conf.d/a.conf": {Data: []byte("a=1\n")},
		"etc/conf.d/b.conf": {Data: bytes.Repeat([]byte("b"), 70000)},
		"etc/secret":        {Data: []byte("s\n"), Mode: 0o600},
		"empty":             {Mode: fs.ModeDir},
		"ro":                {Mode: fs.ModeDir | 0o555},
		"ro/file":           {Data: []byte("ro\n")},
		"ro/link":           {Data: []byte("file"), Mode: fs.ModeSymlink},
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	writeMapFS(t, mapfs, src)

	ts := time.Unix(1600000000, 0).UTC()
	noEnv := func(string) string { return "" }
	for _, tc := range []struct {
		name  string
		args  []string
		build func(fstree.Source) ([]byte, error)
	}{
		{"ufs1", []string{"-t", "ffs"}, func(s fstree.Source) ([]byte, error) {
			return ffs.Build(s, &ffs.Options{Timestamp: ts})
		}},
		{"ufs2", []string{"-t", "ffs", "-o", "version=2"}, func(s fstree.Source) ([]byte, error) {
			return ffs.Build(s, &ffs.Options{Version: 2, Timestamp: ts})
		}},
		{"rockridge", []string{"-t", "cd9660", "-o", "rockridge"}, func(s fstree.Source) ([]byte, error) {
			return cd9660.Build(s, &cd9660.Options{RockRidge: true, Timestamp: ts})
		}},
		{"msdos", []string{"-t", "msdos", "-s", "1440k"}, func(s fstree.Source) ([]byte, error) {
			const size = 1440 << 10
			return msdos.Build(s, &msdos.Options{Size: size, MinSize: size, MaxSize: size, Timestamp: ts})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := tc.name + ".img"
			args := append(append([]string{}, tc.args...), "-T", "1600000000", out, "src")
			c, err := makefs.Parse(args, dir, noEnv)
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			if err := c.Run(&stderr, &stderr); err != nil {
				t.Fatalf("makefs %q: %v\n%s", args, err, stderr.String())
			}
			want, err := os.ReadFile(filepath.Join(dir, out))
			if err != nil {
				t.Fatal(err)
			}
			got, err := tc.build(fstree.FS(mapfs))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("the image of the MapFS (%d bytes) differs from makefs %q (%d bytes) at byte %#x", len(got), args, len(want), firstDiff(got, want))
			}
		})
	}
}

// writeMapFS writes the files of fsys under dir as a user would make
// them on disk: directories 0755 and files 0644 unless the MapFS gives a
// mode, and links as symlink(2) makes them, with modes set with chmod so that the process's umask does not matter.
func writeMapFS(t *testing.T, fsys fstest.MapFS, dir string) {
	t.Helper()
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		host := filepath.Join(dir, filepath.FromSlash(p))
		mode := fs.FileMode(0o644)
		if d.IsDir() {
			mode = 0o755
		}
		if f := fsys[p]; f != nil && f.Mode.Perm() != 0 {
			mode = f.Mode.Perm()
		}
		switch {
		case d.Type() == fs.ModeSymlink:
			return os.Symlink(string(fsys[p].Data), host)
		case d.IsDir():
			if err := os.MkdirAll(host, 0o755); err != nil {
				return err
			}
		default:
			if err := os.WriteFile(host, fsys[p].Data, 0o600); err != nil {
				return err
			}
		}
		return os.Chmod(host, mode)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// firstDiff returns the offset of the first byte at which a and b differ.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
