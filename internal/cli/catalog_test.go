package cli

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/cd9660"
	"github.com/fixturegen/fixturegen/imgkit/inspect"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// catalogDir is this repository's own catalogue.
var catalogDir = filepath.Join("..", "..", "fixtures")

// TestCatalogVerify rebuilds the repository's catalogue in a temporary
// directory and checks it against fixtures/fixtures.sum: this is how CI
// (go test ./...) runs "fixturegen verify" on it.
func TestCatalogVerify(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	e := &env{Stdout: &stdout, Stderr: &stderr, Dir: ".", Getenv: func(string) string { return "" }}
	if code := runMain(e, []string{"verify", "-C", catalogDir}); code != 0 {
		t.Fatalf("fixturegen verify -C fixtures: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	if !strings.HasSuffix(stdout.String(), " 0 failed\n") {
		t.Errorf("verify output %q", stdout.String())
	}
}

// TestCatalogValid builds the catalogue into a copy of its folder and
// checks every output with an independent tool: fsck.fat for the FAT
// images, GNU ar and llvm-nm for the archives, sleuthkit's fls for FFS,
// bsdtar for ISO 9660, sgdisk or sfdisk and freebsd-mkimg for the disks
// (checkCatalogDisk). It also checks that inspect recognises and lists
// each image.
func TestCatalogValid(t *testing.T) {
	t.Parallel()
	cat, err := loadCatalog(&env{Dir: "."}, "test", catalogDir)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(catalogDir)); err != nil {
		t.Fatal(err)
	}
	// Start from the inputs alone, as a fresh clone does.
	os.Remove(filepath.Join(dir, stateName))
	for _, m := range cat.Entries {
		os.Remove(filepath.Join(dir, filepath.FromSlash(m.Name)))
	}
	var stderr bytes.Buffer
	e := &env{Stdout: &bytes.Buffer{}, Stderr: &stderr, Dir: dir, Getenv: func(string) string { return "" }}
	if code := runMain(e, []string{"build", "-q", "-C", dir}); code != 0 {
		t.Fatalf("build: exit %d: %s", code, stderr.String())
	}
	for _, m := range cat.Entries {
		out := filepath.Join(dir, filepath.FromSlash(m.Name))
		if m.Args[0] == "mkimg" {
			t.Run(m.Name, func(t *testing.T) {
				t.Parallel()
				checkCatalogDisk(t, dir, m.Args[1:], out)
			})
			continue
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := f.Stat()
		fsys, format, err := inspect.Open(f, fi.Size())
		f.Close()
		if err != nil || fsys == nil {
			t.Errorf("%s: inspect.Open: %v", m.Name, err)
			continue
		}
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			checkCatalogOutput(t, m.Name, format.Name, out)
		})
	}
}

// checkCatalogOutput checks the catalogue output out, named name, of the
// format that inspect found, with an independent tool.
func checkCatalogOutput(t *testing.T, name, format, out string) {
	switch format {
	case "msdos":
		tooltest.Need(t, "fsck.fat")
		if b, err := exec.Command("fsck.fat", "-n", out).CombinedOutput(); err != nil {
			t.Errorf("fsck.fat -n %s: %v\n%s", name, err, b)
		}
	case "ar":
		tooltest.Need(t, "ar")
		if b, err := exec.Command("ar", "t", out).CombinedOutput(); err != nil || len(b) == 0 {
			t.Errorf("ar t %s: %v\n%s", name, err, b)
		}
		// llvm-nm reads both the GNU and the BSD symbol index.
		tooltest.Need(t, "llvm-nm")
		b, err := exec.Command("llvm-nm", "--print-armap", out).CombinedOutput()
		if err != nil || !strings.Contains(string(b), "add in ") {
			t.Errorf("llvm-nm --print-armap %s: %v: no index entry for add\n%s", name, err, b)
		}
	case "ffs":
		tooltest.Need(t, "fls")
		b, err := exec.Command("fls", "-f", "ufs", "-r", out).CombinedOutput()
		if err != nil || !strings.Contains(string(b), "archive.tar.gz.txt") {
			t.Errorf("fls -f ufs -r %s: %v\n%s", name, err, b)
		}
	case "cd9660":
		checkISOListing(t, name, out)
	case "ext":
		tooltest.Need(t, "e2fsck")
		if b, err := exec.Command("e2fsck", "-fn", out).CombinedOutput(); err != nil {
			t.Errorf("e2fsck -fn %s: %v\n%s", name, err, b)
		}
	case "cpio":
		// GNU cpio and bsdtar (libarchive) both list it.
		tooltest.Need(t, "cpio")
		if b, err := exec.Command("cpio", "-t", "--quiet", "-F", out).CombinedOutput(); err != nil || len(b) == 0 {
			t.Errorf("cpio -t -F %s: %v\n%s", name, err, b)
		}
		tooltest.Need(t, "bsdtar")
		if b, err := exec.Command("bsdtar", "-tf", out).CombinedOutput(); err != nil || len(b) == 0 {
			t.Errorf("bsdtar -tf %s: %v\n%s", name, err, b)
		}
	default:
		t.Errorf("%s: format %s", name, format)
	}
}

// checkISOListing checks that bsdtar (libarchive) lists the same paths in
// the ISO image out as fixturegen's reader, fsys: Rock Ridge names where
// the image has them, Joliet or ISO 9660 names otherwise.
func checkISOListing(t *testing.T, name, out string) {
	tooltest.Need(t, "bsdtar")
	fsys, err := cd9660.OpenReader(out)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	b, err := exec.Command("bsdtar", "-tf", out).CombinedOutput()
	if err != nil {
		t.Fatalf("bsdtar -tf %s: %v\n%s", name, err, b)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if l = strings.TrimPrefix(l, "./"); l != "." && l != "" {
			got = append(got, l)
		}
	}
	var want []string
	fs.WalkDir(fsys, ".", func(p string, _ fs.DirEntry, err error) error {
		if err == nil && p != "." {
			want = append(want, p)
		}
		return err
	})
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("bsdtar -tf %s lists %q; fixturegen's reader %q", name, got, want)
	}
}

// TestInvocation checks the command that hints name: the go command line
// that started fixturegen, else the program's name.
func TestInvocation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		arg0   string
		parent []string
		want   string
	}{
		{"/usr/local/bin/fixturegen", []string{"bash"}, "fixturegen"},
		{"/tmp/go-build1/b001/exe/fixturegen", []string{"go", "tool", "fixturegen", "build"}, "go tool fixturegen"},
		{"/root/.cache/go-build/2e/x-d/fixturegen", []string{"/usr/local/go/bin/go", "run", "-race", "./cmd/fixturegen", "build", "-q"}, "go run -race ./cmd/fixturegen"},
		{"/tmp/x/fixturegen", []string{"go", "run", "my dir/cmd/fixturegen"}, "go run 'my dir/cmd/fixturegen'"},
		{"/tmp/cli.test", nil, "fixturegen"},
	} {
		if got := invocationOf(tc.arg0, tc.parent); got != tc.want {
			t.Errorf("invocationOf(%q, %q) = %q, want %q", tc.arg0, tc.parent, got, tc.want)
		}
	}
	e := &env{}
	if got := updateCommand(e, "test data"); got != "fixturegen build -C 'test data' -update" {
		t.Errorf("updateCommand = %q", got)
	}
}
