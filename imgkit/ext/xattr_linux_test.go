package ext

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// xattrTree makes a small tree whose files carry user.* attributes of
// the host (which mke2fs -d copies with llistxattr) and a POSIX ACL with
// a named user, and returns it with a file of 5000 bytes for debugfs's
// ea_set -f (which reads at most a block of it).
func xattrTree(t *testing.T) (src, big string) {
	t.Helper()
	dir := t.TempDir()
	src = filepath.Join(dir, "src")
	for _, p := range []string{"d/sub", "e"} {
		if err := os.MkdirAll(filepath.Join(src, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"a", "b", "c", "d/f"} {
		if err := os.WriteFile(filepath.Join(src, p), []byte("file "+p+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	set := func(p, name string, v []byte) {
		if err := unix.Lsetxattr(filepath.Join(src, p), name, v, 0); err != nil {
			tooltest.Missing(t, fmt.Sprintf("the host's file system takes no %s attribute: %v", name, err))
		}
	}
	set("a", "user.short", []byte("hello"))
	set("a", "user.empty", nil)
	set("b", "user.mid", bytes.Repeat([]byte("m"), 300))
	set("d/f", "user.bin", []byte{0, 1, 2, 0xff, 'x'})
	set("d", "user.dir", []byte("on a directory"))
	// posix_acl_xattr_header version 2, then USER_OBJ rw-, USER 1000 r--,
	// GROUP_OBJ r--, MASK r--, OTHER r--.
	acl := binary.LittleEndian.AppendUint32(nil, 2)
	for _, e := range [][3]uint32{{1, 6, ^uint32(0)}, {2, 4, 1000}, {4, 4, ^uint32(0)}, {0x10, 4, ^uint32(0)}, {0x20, 4, ^uint32(0)}} {
		acl = binary.LittleEndian.AppendUint16(acl, uint16(e[0]))
		acl = binary.LittleEndian.AppendUint16(acl, uint16(e[1]))
		acl = binary.LittleEndian.AppendUint32(acl, e[2])
	}
	set("c", "system.posix_acl_access", acl)
	big = filepath.Join(dir, "big")
	v := make([]byte, 5000)
	for i := range v {
		v[i] = 'a' + byte(i%26)
	}
	if err := os.WriteFile(big, v, 0o644); err != nil {
		t.Fatal(err)
	}
	return src, big
}

// eaListRE matches an attribute line of debugfs's ea_list: its name and
// size.
var eaListRE = regexp.MustCompile(`^  (\S+) \((\d+)\)`)

// TestXattrsReference reads the extended attributes of images the
// reference mke2fs made of a tree carrying some (in the inode's body, in
// the attribute block, a POSIX ACL), to which the reference debugfs
// added trusted.* and security.* ones and values of a block (in the
// block, or with ea_inode in inodes of their own), and compares each
// path's with debugfs's ea_list and ea_get; Fields lists them with every
// checksum matching.
func TestXattrsReference(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, refMke2fs)
	src, big := xattrTree(t)
	paths := []string{"/", "a", "b", "c", "d", "d/f", "d/sub", "e", "lost+found"}
	for _, v := range []struct {
		name string
		args []string
	}{
		{"ext4-4k-ea_inode", []string{"-t", "ext4", "-b", "4096", "-O", "ea_inode"}},
		{"ext4-1k-ea_inode-128", []string{"-t", "ext4", "-b", "1024", "-I", "128", "-O", "ea_inode"}},
		{"ext4-nocsum", []string{"-t", "ext4", "-b", "4096", "-O", "^metadata_csum"}},
		{"ext2-1k", []string{"-t", "ext2", "-b", "1024"}},
		{"ext3-4k-128", []string{"-t", "ext3", "-b", "4096", "-I", "128"}},
	} {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			img := mke2fs(t, refMke2fs, src, "8M", v.args...)
			debugfs(t, img, true,
				"ea_set /a trusted.t "+strings.Repeat("T", 40),
				"ea_set /d security.selinux system_u:object_r:etc_t:s0",
				"ea_set -f "+big+" /e user.block",
				"ea_set /e user.small s",
				"ea_set / user.root r")
			f := openImage(t, img)
			var cmds []string
			want := map[string][]string{}
			for _, p := range paths {
				cmds = append(cmds, "ea_list "+p)
			}
			out := debugfs(t, img, false, cmds...)
			cur := ""
			for _, line := range strings.Split(out, "\n") {
				if c, ok := strings.CutPrefix(line, "debugfs: ea_list "); ok {
					cur = c
					continue
				}
				if m := eaListRE.FindStringSubmatch(line); m != nil {
					want[cur] = append(want[cur], m[1]+" "+m[2])
				}
			}
			n := 0
			dir := t.TempDir()
			for _, p := range paths {
				name := strings.TrimPrefix(p, "/")
				if name == "" {
					name = "."
				}
				xs, err := f.Xattrs(name)
				if err != nil {
					t.Fatalf("Xattrs(%q): %v", p, err)
				}
				var got []string
				var get []string
				for i, x := range xs {
					n++
					// debugfs's ea_get gives a POSIX ACL as
					// getxattr(2) does, not as stored.
					if !strings.HasPrefix(x.Name, "system.posix_acl") {
						get = append(get, fmt.Sprintf("ea_get -f %s/%d %s %s", dir, i, p, x.Name))
					}
					got = append(got, x.Name+" "+strconv.Itoa(len(x.Value)))
				}
				slices.Sort(want[p]) // ea_list lists them as stored
				if strings.Join(got, "\n") != strings.Join(want[p], "\n") {
					t.Errorf("%s: attributes\n%s\nwant (debugfs ea_list)\n%s", p, strings.Join(got, "\n"), strings.Join(want[p], "\n"))
					continue
				}
				if len(get) == 0 {
					continue
				}
				debugfs(t, img, false, get...)
				for i, x := range xs {
					if strings.HasPrefix(x.Name, "system.posix_acl") {
						continue
					}
					b, err := os.ReadFile(fmt.Sprintf("%s/%d", dir, i))
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(b, x.Value) {
						t.Errorf("%s %s: value %q, debugfs ea_get gives %q", p, x.Name, x.Value, b)
					}
				}
			}
			if n < 10 {
				t.Errorf("read %d attributes, want 10 or more", n)
			}
			if strings.Contains(v.name, "ea_inode") {
				xs, _ := f.Xattrs("e")
				if len(xs) == 0 || xs[0].Name != "user.block" || xs[0].Inum == 0 {
					t.Errorf("e: user.block is not in an ea_inode: %+v", xs)
				}
			}
			if w := f.Warnings(); len(w) != 0 {
				t.Errorf("warnings: %q", w)
			}
			checkFieldsClean(t, img, map[[2]string]string{
				{"/a", "xattr user.short"}:       `"hello"`,
				{"/a", "xattr user.empty"}:       `""`,
				{"/d/f", "xattr user.bin"}:       describe.DataValue(5, describe.Sum([]byte{0, 1, 2, 0xff, 'x'})),
				{"/d", "xattr user.dir"}:         `"on a directory"`,
				{"/d", "xattr security.selinux"}: `"system_u:object_r:etc_t:s0"`,
			})
		})
	}
}

// checkFieldsClean describes img and checks each (Path, Name) once and
// inside the image, that no checksum is off, and the values of want.
func checkFieldsClean(t *testing.T, img string, want map[[2]string]string) {
	t.Helper()
	fl, err := os.Open(img)
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	fi, err := fl.Stat()
	if err != nil {
		t.Fatal(err)
	}
	fields, err := Fields(fl, fi.Size())
	if err != nil {
		t.Fatal(err)
	}
	byKey := tooltest.IndexFields(t, fields, fi.Size())
	for _, x := range fields {
		if strings.Contains(x.Value, "computed") {
			t.Errorf("%s %s: %s", x.Path, x.Name, x.Value)
		}
	}
	for key, w := range want {
		if got, ok := byKey[key]; !ok || got.Value != w {
			t.Errorf("%v: %q, want %q", key, got.Value, w)
		}
	}
}
