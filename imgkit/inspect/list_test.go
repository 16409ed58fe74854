package inspect

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fixturegen/fixturegen/imgkit/ar"
	"github.com/fixturegen/fixturegen/imgkit/cd9660"
	"github.com/fixturegen/fixturegen/imgkit/ffs"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/msdos"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// ownedTree returns a tree whose files have owners, groups and modes
// that show every kind of mode letter a listing has: a file 0640 of
// 1000:1000, a setuid program, a sticky directory and a symbolic link.
func ownedTree(t *testing.T) *fstree.Tree {
	t.Helper()
	tr, err := fstree.FS(fstest.MapFS{
		"secret.txt":    {Data: []byte("hush\n")},
		"tool":          {Data: []byte("#!/bin/sh\n")},
		"shared/note":   {Data: []byte("n\n")},
		"link":          {Data: []byte("secret.txt"), Mode: fs.ModeSymlink},
		"plain/ro.conf": {Data: []byte("x\n")},
	}).Tree(&fstree.Options{Timestamp: t0})
	if err != nil {
		t.Fatal(err)
	}
	set := func(p string, uid, gid, mode uint32) {
		n := tr.Lookup(p)
		n.UID, n.GID, n.Mode = uid, gid, mode
	}
	set("secret.txt", 1000, 1000, 0o640)
	set("tool", 0, 5, 0o4755)
	set("shared", 1001, 100, 0o1777)
	set("link", 7, 8, 0o777)
	set("plain/ro.conf", 0, 0, 0o2444)
	return tr
}

// ownedLines are the mode letters, owner and group of ownedTree's files
// as ls -l shows them, by path as WriteLongList writes it.
var ownedLines = map[string]string{
	"secret.txt":    "-rw-r----- 1000 1000",
	"tool":          "-rwsr-xr-x 0 5",
	"shared/":       "drwxrwxrwt 1001 100",
	"shared/note":   "-rw-r--r-- 0 0",
	"link":          "lrwxrwxrwx 7 8",
	"plain/":        "drwxr-xr-x 0 0",
	"plain/ro.conf": "-r--r-Sr-- 0 0",
}

// longListing returns the lines of ListFileLong for img by path: the mode
// letters, owner and group, and the link target of each.
func longListing(t *testing.T, img []byte) (owners, links map[string]string) {
	t.Helper()
	var b bytes.Buffer
	if err := ListFileLong(&b, bytes.NewReader(img), int64(len(img))); err != nil {
		t.Fatal(err)
	}
	owners, links = map[string]string{}, map[string]string{}
	for line := range strings.Lines(b.String()) {
		f := strings.Fields(line)
		path := f[len(f)-1]
		if len(f) > 3 && f[len(f)-2] == "->" {
			path = f[len(f)-3]
			links[path] = f[len(f)-1]
		}
		owners[path] = strings.Join(f[:3], " ")
	}
	return owners, links
}

// TestListLongOwners checks that ls -l of an image of every format that
// stores owners (FFS UFS1 and UFS2, ISO 9660 with Rock Ridge) shows the
// owner, group and mode letters of its source tree and the link's target,
// and that FAT and ISO 9660 without Rock Ridge, which store no owner,
// show "-".
func TestListLongOwners(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		build func(fstree.Source) ([]byte, error)
	}{
		{"ufs1", func(s fstree.Source) ([]byte, error) { return ffs.Build(s, &ffs.Options{Timestamp: t0}) }},
		{"ufs2", func(s fstree.Source) ([]byte, error) { return ffs.Build(s, &ffs.Options{Version: 2, Timestamp: t0}) }},
		{"rockridge", func(s fstree.Source) ([]byte, error) {
			return cd9660.Build(s, &cd9660.Options{RockRidge: true, Timestamp: t0})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			img, err := c.build(ownedTree(t))
			if err != nil {
				t.Fatal(err)
			}
			owners, links := longListing(t, img)
			for p, want := range ownedLines {
				if got := owners[p]; got != want {
					t.Errorf("%s: %q, want %q", p, got, want)
				}
			}
			if len(owners) != len(ownedLines) {
				t.Errorf("%d lines, want %d: %q", len(owners), len(ownedLines), owners)
			}
			if links["link"] != "secret.txt" {
				t.Errorf("link -> %q, want secret.txt", links["link"])
			}
		})
	}
	for _, c := range []struct {
		name  string
		build func(fstree.Source) ([]byte, error)
	}{
		{"msdos", func(s fstree.Source) ([]byte, error) {
			return msdos.Build(s, &msdos.Options{Size: 1440 << 10, Timestamp: t0})
		}},
		{"iso9660", func(s fstree.Source) ([]byte, error) { return cd9660.Build(s, &cd9660.Options{Timestamp: t0}) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tr := ownedTree(t)
			// A symbolic link is no file to FAT or plain ISO 9660.
			tr.Root.Children = slices.DeleteFunc(tr.Root.Children, func(n *fstree.Node) bool { return n.Type == fstree.TypeSymlink })
			img, err := c.build(tr)
			if err != nil {
				t.Fatal(err)
			}
			owners, _ := longListing(t, img)
			if len(owners) == 0 {
				t.Fatal("no lines")
			}
			for p, got := range owners {
				if f := strings.Fields(got); f[1] != "-" || f[2] != "-" {
					t.Errorf("%s: %q, want no owner and group (- -)", p, got)
				}
			}
		})
	}
}

// TestListLongAr checks that ls -l of an ar archive shows each member's
// ar_uid, ar_gid and ar_mode, setuid included.
func TestListLongAr(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := ar.NewWriter(&buf, nil)
	for _, h := range []ar.Header{
		{Name: "a.o", Uid: 1000, Gid: 1000, Mode: 0o100640, ModTime: t0, Size: 1},
		{Name: "b.o", Uid: 0, Gid: 5, Mode: 0o4755, ModTime: t0, Size: 1},
	} {
		if err := w.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("x"))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	owners, _ := longListing(t, buf.Bytes())
	want := map[string]string{"a.o": "-rw-r----- 1000 1000", "b.o": "-rwsr-xr-x 0 5"}
	for p, w := range want {
		if owners[p] != w {
			t.Errorf("%s: %q, want %q", p, owners[p], w)
		}
	}
}

// TestListLongMatchesBsdtar lists a Rock Ridge image with ListFileLong
// and with bsdtar tvf and requires the same mode letters, owner, group
// and link target for every file: ls -l's letters are tar tv's.
func TestListLongMatchesBsdtar(t *testing.T) {
	t.Parallel()
	bsdtar := tooltest.Need(t, "bsdtar")
	img, err := cd9660.Build(ownedTree(t), &cd9660.Options{RockRidge: true, Timestamp: t0})
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "rr.iso")
	if err := os.WriteFile(name, img, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bsdtar, "tvf", name)
	cmd.Env = append(os.Environ(), "TZ=UTC", "LC_ALL=C")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bsdtar tvf: %v", err)
	}
	// bsdtar: mode, links, uid, gid, size, month, day, time or year, path.
	tar := map[string]string{}
	tarLinks := map[string]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) < 9 {
			t.Fatalf("bsdtar line %q", line)
		}
		p := strings.TrimPrefix(f[8], "./")
		if p == "." || p == "" {
			continue
		}
		if f[0][0] == 'd' {
			p = strings.TrimSuffix(p, "/") + "/"
		}
		if len(f) == 11 && f[9] == "->" {
			tarLinks[p] = f[10]
		}
		tar[p] = f[0] + " " + f[2] + " " + f[3]
	}
	owners, links := longListing(t, img)
	if len(tar) != len(owners) {
		t.Errorf("bsdtar lists %d files, ListFileLong %d:\n%s", len(tar), len(owners), out)
	}
	for p, got := range owners {
		if tar[p] != got {
			t.Errorf("%s: ListFileLong %q, bsdtar %q", p, got, tar[p])
		}
	}
	if links["link"] != tarLinks["link"] {
		t.Errorf("link -> %q, bsdtar -> %q", links["link"], tarLinks["link"])
	}
}
