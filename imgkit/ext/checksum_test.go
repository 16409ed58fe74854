package ext

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestChecksumWarningsIndexBitmapsXattr changes a byte under an htree
// root's dt_checksum (e2fsck -fyD indexed the directory), under group 0's
// block and inode bitmap checksums and under an attribute block's
// h_checksum and its entry's e_hash, and expects a warning for each and
// Fields to show each as computed otherwise; the clean image gives none
// and shows each as matching.
func TestChecksumWarningsIndexBitmapsXattr(t *testing.T) {
	t.Parallel()
	src := mkTree(t)
	img := mke2fs(t, refMke2fs, src, "32M", "-N", "6000", "-t", "ext4", "-b", "4096")
	e2fsck := tooltest.Need(t, "e2fsck-1.47.4")
	if out, err := exec.Command(e2fsck, "-fyD", img).CombinedOutput(); exitCode(err) > 1 {
		t.Fatalf("e2fsck -fyD: %v\n%s", err, out)
	}
	big := filepath.Join(t.TempDir(), "v")
	if err := os.WriteFile(big, bytes.Repeat([]byte("v"), 2000), 0o644); err != nil {
		t.Fatal(err)
	}
	debugfs(t, img, true, "ea_set -f "+big+" /a.txt user.v")

	f := openImage(t, img)
	if w := f.Warnings(); len(w) != 0 {
		t.Fatalf("clean image: warnings %q", w)
	}
	fieldNames := []string{"index block 0 dt_checksum", "block bitmap checksum", "inode bitmap checksum", "xattr block h_checksum", "xattr user.v e_hash"}
	clean := fieldsByName(t, img)
	for _, n := range fieldNames {
		if v := clean[n]; !strings.HasSuffix(v, "(matches)") {
			t.Errorf("clean image: %s: %q", n, v)
		}
	}

	ext, err := f.Extents("many")
	if err != nil || len(ext) == 0 {
		t.Fatalf("extents of many: %v, %v", ext, err)
	}
	in, err := f.Inode("a.txt")
	if err != nil || in.FileACL == 0 {
		t.Fatalf("a.txt: %+v, %v", in, err)
	}
	gd := f.gdt[0]
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	bs := int64(4096)
	b[int64(ext[0].Start)*bs+dxRootCountOff+dxEntrySize] ^= 1                              // the hash of the root's second dx_entry
	b[int64(gd.lohi(groupDesc.bgBlockBitmapLo, groupDesc.bgBlockBitmapHi))*bs+100] ^= 0x10 // a block of group 0
	b[int64(gd.lohi(groupDesc.bgInodeBitmapLo, groupDesc.bgInodeBitmapHi))*bs+100] ^= 0x10 // an inode of group 0
	b[int64(in.FileACL)*bs+bs-1] ^= 1                                                      // the last byte of user.v's value
	bad := filepath.Join(t.TempDir(), "bad.img")
	if err := os.WriteFile(bad, b, 0o644); err != nil {
		t.Fatal(err)
	}
	g := openImage(t, bad)
	if _, err := g.ReadDir("many"); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Xattrs("a.txt"); err != nil {
		t.Fatal(err)
	}
	w := strings.Join(g.Warnings(), "\n")
	for _, want := range []string{
		fmt.Sprintf("directory inode %d: index block 0: dt_checksum", g.mustIno(t, "many")),
		"group descriptor 0 at byte 0x1000: block bitmap checksum",
		"group descriptor 0 at byte 0x1000: inode bitmap checksum",
		fmt.Sprintf("extended attribute block %d at byte %#x: h_checksum", in.FileACL, int64(in.FileACL)*bs),
		fmt.Sprintf("extended attribute block %d: attribute user.v at byte", in.FileACL),
	} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings\n%s\nlack %q", w, want)
		}
	}
	broken := fieldsByName(t, bad)
	for _, n := range fieldNames {
		if v := broken[n]; !strings.Contains(v, "(computed 0x") {
			t.Errorf("changed image: %s: %q", n, v)
		}
	}
}

// mustIno returns the inode number of name.
func (rc *ReadCloser) mustIno(t *testing.T, name string) uint32 {
	t.Helper()
	in, err := rc.Inode(name)
	if err != nil {
		t.Fatal(err)
	}
	return in.Ino
}

// fieldsByName describes img and returns the values of the fields
// TestChecksumWarningsIndexBitmapsXattr looks at, by name: group 0's,
// /many's and /a.txt's.
func fieldsByName(t *testing.T, img string) map[string]string {
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
	tooltest.IndexFields(t, fields, fi.Size())
	out := map[string]string{}
	for _, x := range fields {
		if x.Path == "group 0" || x.Path == "/many" || x.Path == "/a.txt" {
			out[x.Name] = x.Value
		}
	}
	return out
}
