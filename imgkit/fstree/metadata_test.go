package fstree

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
)

// metadataTree makes a directory with what a checkout can differ in: a
// private file and directory (umask 077), an executable, a symbolic link
// and two hard-linked names; as root, owners other than root's.
func metadataTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Mkdir(filepath.Join(dir, "sub"), 0o700))
	must(os.WriteFile(filepath.Join(dir, "sub", "private"), []byte("p\n"), 0o600))
	must(os.WriteFile(filepath.Join(dir, "run.sh"), []byte("#!/bin/sh\n"), 0o700))
	must(os.WriteFile(filepath.Join(dir, "a"), []byte("a\n"), 0o664))
	for _, p := range []string{"sub", "sub/private", "run.sh", "a"} {
		// Set the modes whatever the umask of the test.
		mode := map[string]os.FileMode{"sub": 0o700, "sub/private": 0o600, "run.sh": 0o700, "a": 0o664}[p]
		must(os.Chmod(filepath.Join(dir, p), mode))
	}
	if err := os.Link(filepath.Join(dir, "a"), filepath.Join(dir, "b")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	if err := os.Symlink("sub/private", filepath.Join(dir, "link")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if os.Geteuid() == 0 && runtime.GOOS != "windows" {
		for _, p := range []string{".", "sub", "sub/private", "run.sh", "a", "link"} {
			must(os.Lchown(filepath.Join(dir, p), 1000, 1001))
		}
	}
	return dir
}

// wantGit checks that the nodes of tr have the metadata of MetadataGit.
func wantGit(t *testing.T, how string, tr *Tree, links bool) {
	t.Helper()
	want := map[string]uint32{".": 0o755, "sub": 0o755, "sub/private": 0o644, "run.sh": 0o755, "a": 0o644, "b": 0o644}
	if links {
		want["link"] = 0o777
	}
	for p, mode := range want {
		n := tr.Lookup(p)
		if n == nil {
			t.Errorf("%s: %s missing", how, p)
			continue
		}
		if n.Mode != mode || n.UID != 0 || n.GID != 0 || n.Flags != 0 || n.HardLink != nil {
			t.Errorf("%s: %s: mode %#o uid %d gid %d flags %#x hard link %v; want mode %#o, 0:0, no flags, no hard link",
				how, p, n.Mode, n.UID, n.GID, n.Flags, n.HardLink != nil, mode)
		}
		if n.Type != TypeDir && n.Nlink != 1 {
			t.Errorf("%s: %s: nlink %d, want 1", how, p, n.Nlink)
		}
	}
	if links {
		if n := tr.Lookup("link"); n == nil || n.Link != "sub/private" {
			t.Errorf("%s: the link's target is not kept: %+v", how, n)
		}
	}
}

func TestWalkDirMetadataGit(t *testing.T) {
	t.Parallel()
	dir := metadataTree(t)
	host, err := WalkDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The host's metadata is what the tree was made with, so that the
	// checks below can fail.
	if n := host.Lookup("b"); n.HardLink == nil || n.Nlink != 2 {
		t.Errorf("host: a and b are not one hard-link group: %+v", n)
	}
	if n := host.Lookup("sub/private"); n.Mode != 0o600 {
		t.Errorf("host: sub/private has mode %#o, want 0600", n.Mode)
	}
	if os.Geteuid() == 0 && runtime.GOOS != "windows" {
		if n := host.Lookup("run.sh"); n.UID != 1000 || n.GID != 1001 {
			t.Errorf("host: run.sh is owned by %d:%d, want 1000:1001", n.UID, n.GID)
		}
	}
	git, err := WalkDir(dir, &Options{Metadata: MetadataGit})
	if err != nil {
		t.Fatal(err)
	}
	wantGit(t, "WalkDir", git, true)
	viaFS, err := FromFS(os.DirFS(dir), ".", &Options{Metadata: MetadataGit})
	if err != nil {
		t.Fatal(err)
	}
	wantGit(t, "FromFS(os.DirFS)", viaFS, true)
	src, err := Dir(dir).Tree(&Options{Metadata: MetadataGit})
	if err != nil {
		t.Fatal(err)
	}
	wantGit(t, "Dir", src, true)
}

// TestMetadataGitBeforeSpec checks that a spec merged into a tree walked
// with MetadataGit still sets what it says, and that a tree from a spec
// alone keeps the spec's owners.
func TestMetadataGitBeforeSpec(t *testing.T) {
	t.Parallel()
	dir := metadataTree(t)
	spec, err := ReadSpec(strings.NewReader("#mtree\n./run.sh type=file mode=0500 uid=7 gid=8 flags=nodump\n"), "spec.mtree")
	if err != nil {
		t.Fatal(err)
	}
	opts := &Options{Metadata: MetadataGit}
	tr, err := WalkDir(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if tr, err = ApplySpec(tr, spec, false, opts); err != nil {
		t.Fatal(err)
	}
	if n := tr.Lookup("run.sh"); n.Mode != 0o500 || n.UID != 7 || n.GID != 8 || n.Flags != FlagNodump {
		t.Errorf("run.sh: mode %#o owner %d:%d flags %#x; want the spec's 0500, 7:8, nodump", n.Mode, n.UID, n.GID, n.Flags)
	}
	if n := tr.Lookup("sub/private"); n.Mode != 0o644 || n.UID != 0 {
		t.Errorf("sub/private, which the spec leaves out: mode %#o uid %d; want 0644, 0", n.Mode, n.UID)
	}
	if n := tr.Lookup("b"); n.HardLink != nil {
		t.Errorf("b is a hard link again after the spec")
	}
	only, err := ReadSpec(strings.NewReader("#mtree\n. type=dir mode=0700 uid=5 gid=6\nf type=file mode=0600 uid=5 gid=6\n"), "only.mtree")
	if err != nil {
		t.Fatal(err)
	}
	st, err := ApplySpec(nil, only, false, opts)
	if err != nil {
		t.Fatal(err)
	}
	if st, err = st.Tree(opts); err != nil {
		t.Fatal(err)
	}
	if n := st.Lookup("f"); n.Mode != 0o600 || n.UID != 5 || n.GID != 6 {
		t.Errorf("a spec's own file: mode %#o owner %d:%d; want 0600, 5:6 as the spec says", n.Mode, n.UID, n.GID)
	}
}

func TestFromFSMetadataGit(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"exec":      {Data: []byte("x"), Mode: fs.ModeSetuid | 0o710},
		"plain":     {Data: []byte("p"), Mode: 0o600},
		"d":         {Mode: fs.ModeDir | fs.ModeSticky | 0o700},
		"d/fifo":    {Mode: fs.ModeNamedPipe | 0o600},
		"d/ordered": {Data: []byte("o")},
	}
	tr, err := FromFS(fsys, ".", &Options{Metadata: MetadataGit})
	if err != nil {
		t.Fatal(err)
	}
	for p, mode := range map[string]uint32{"exec": 0o755, "plain": 0o644, "d": 0o755, "d/fifo": 0o644, "d/ordered": 0o644} {
		if n := tr.Lookup(p); n == nil || n.Mode != mode || n.UID != 0 || n.GID != 0 {
			t.Errorf("%s: %+v; want mode %#o, 0:0", p, n, mode)
		}
	}
	host, err := FromFS(fsys, ".", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := host.Lookup("exec"); n.Mode != 0o4710 {
		t.Errorf("host: exec has mode %#o, want 04710 as the FS gives it", n.Mode)
	}
}

func TestMetadataString(t *testing.T) {
	t.Parallel()
	for m, want := range map[Metadata]string{MetadataHost: "host", MetadataGit: "git", 9: "Metadata(9)"} {
		if got := m.String(); got != want {
			t.Errorf("Metadata(%d).String() = %q, want %q", m, got, want)
		}
	}
}
