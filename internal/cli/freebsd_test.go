package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/inspect"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestFreeBSDCommandLines runs msdos command lines through fixturegen's
// makefs and through FreeBSD's own (freebsd-makefs, walking the same tree
// in bytewise order) and compares the images byte for byte. The format
// packages compare their libraries with FreeBSD over large matrices
// (imgkit/msdos and imgkit/ffs freebsd_test.go), and makefs_ffs_test.go
// checks that the CLI gives the library's bytes; this checks the command
// line itself where no field needs masking: that the CLI turns each option
// (by name, by letter, in makefs's number syntax) into what FreeBSD makes
// of it.
func TestFreeBSDCommandLines(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "freebsd-makefs")
	tooltest.SortedReaddir(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	for name, data := range map[string]string{
		"HELLO.TXT":                   "hello\n",
		"readme.md":                   "# read me\n",
		"A long file name.text":       strings.Repeat("long ", 2000),
		"sub/deeper/file.c":           "int main(void) { return 0; }\n",
		"sub/empty":                   "",
		"Project Notes/minutes.markd": strings.Repeat("m", 70000),
	} {
		p := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("HELLO.TXT", filepath.Join(src, "link")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		// FreeBSD reads the -T time for the volume id and the label entry
		// only while it parses -o (imgkit/msdos/DETAILS.md), so -T comes first here.
		{"msdos floppy", []string{"-t", "msdos", "-T", "1700000000", "-o", "fat_type=12", "-s", "1440k"}},
		{"msdos fat16 options", []string{"-t", "msdos", "-T", "1700000000", "-o", "fat_type=16,sectors_per_cluster=1,volume_label=CLI,OEM_string=FIXTURE", "-s", "8m"}},
		{"msdos fat32 letters", []string{"-T", "1700000001", "-t", "msdos", "-o", "F=32,c=1,r=40,n=1", "-s", "33m"}},
		{"msdos offset", []string{"-t", "msdos", "-T", "1700000000", "-O", "64k", "-s", "2m", "-o", "hidden_sectors=128"}},
		{"msdos root entries", []string{"-t", "msdos", "-T", "1700000000", "-S", "512", "-s", "4m", "-o", "directory_entries=100,m=248"}},
		{"msdos products", []string{"-t", "msdos", "-T", "1700000000", "-s", "512x2880", "-o", "floppy=1440,volume_id=0100"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			want := filepath.Join(out, "freebsd.img")
			tooltest.RunSorted(t, dir, "freebsd-makefs", append(append([]string{}, c.args...), want, "src")...)
			got := filepath.Join(out, "fixturegen.img")
			var stderr bytes.Buffer
			if code := runMain(&env{Stderr: &stderr, Stdout: &stderr, Dir: dir}, append(append([]string{"makefs"}, c.args...), got, "src")); code != 0 {
				t.Fatalf("fixturegen makefs %s: exit %d\n%s", strings.Join(c.args, " "), code, stderr.String())
			}
			compareImages(t, want, got)
		})
	}
}

// compareImages fails the test unless the images at a and b are the
// same, explaining a difference with inspect.Diff.
func compareImages(t *testing.T, a, b string) {
	t.Helper()
	da, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	db, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(da, db) {
		return
	}
	rep, err := inspect.Diff(bytes.NewReader(da), int64(len(da)), bytes.NewReader(db), int64(len(db)))
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	rep.Write(&sb, "freebsd-makefs", "fixturegen")
	t.Errorf("the images differ:\n%s", sb.String())
}
