package inspect_test

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/inspect"
	"github.com/fixturegen/fixturegen/imgkit/mkimg"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// extImage makes a 4 MiB ext4 image with Debian's mkfs.ext4 -d of a tree
// whose hello.txt holds hello, and returns its path.
func extImage(t *testing.T, hello string) string {
	t.Helper()
	mkfs := tooltest.Need(t, "mkfs.ext4")
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(filepath.Join(src, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "etc", "hello.txt"), []byte(hello), 0o644); err != nil {
		t.Fatal(err)
	}
	img := filepath.Join(dir, "ext.img")
	cmd := exec.Command(mkfs, "-q", "-F", "-U", "11111111-2222-3333-4444-555555555555", "-E", "hash_seed=11111111-2222-3333-4444-555555555555", "-d", src, img, "4M")
	cmd.Env = append(os.Environ(), "SOURCE_DATE_EPOCH=1700000000", "E2FSPROGS_FAKE_TIME=1700000000")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mkfs.ext4: %v\n%s", err, out)
	}
	return img
}

// TestExtOpen checks that an ext image is detected and opened as ext
// (imgfmt.Identify named it a format fixturegen does not read before
// imgkit/ext), bare, inside a qcow2 and a VHD container, and as a GPT
// partition, and that Diff names the inode field and data that differ.
func TestExtOpen(t *testing.T) {
	t.Parallel()
	img := extImage(t, "hello\n")
	raw, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	disk := filepath.Join(t.TempDir(), "disk.img")
	if err := mkimg.WriteFile(disk, &mkimg.Options{Scheme: "gpt", Partitions: []mkimg.Partition{{Type: "efi", File: img}}}); err != nil {
		t.Fatal(err)
	}
	diskRaw, err := os.ReadFile(disk)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		b    []byte
		path string
	}{
		"bare": {raw, "etc/hello.txt"},
		"gpt":  {diskRaw, "p1/etc/hello.txt"},
	}
	if qemu, err := exec.LookPath("qemu-img"); err == nil {
		for _, c := range []string{"qcow2", "vpc"} {
			out := filepath.Join(t.TempDir(), "disk."+c)
			if b, err := exec.Command(qemu, "convert", "-O", c, img, out).CombinedOutput(); err != nil {
				t.Fatalf("qemu-img: %v\n%s", err, b)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			cases[c] = struct {
				b    []byte
				path string
			}{b, "etc/hello.txt"}
		}
	} else {
		tooltest.Skipped("qemu-img")
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fsys, kind, err := inspect.Open(bytes.NewReader(c.b), int64(len(c.b)))
			if err != nil {
				t.Fatal(err)
			}
			if name == "bare" && kind.Name != "ext" {
				t.Errorf("detected as %s, want ext", kind.Name)
			}
			if got, err := fs.ReadFile(fsys, c.path); string(got) != "hello\n" {
				t.Errorf("%s: %q, %v", c.path, got, err)
			}
		})
	}
	other, err := os.ReadFile(extImage(t, "hello, world\n"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := inspect.Diff(bytes.NewReader(raw), int64(len(raw)), bytes.NewReader(other), int64(len(other)))
	if err != nil {
		t.Fatal(err)
	}
	var fields []string
	for _, c := range rep.Changes {
		if c.Path == "/etc/hello.txt" {
			fields = append(fields, c.Field)
		}
	}
	if got := strings.Join(fields, ","); !strings.Contains(got, "i_size_lo") || !strings.Contains(got, "data") || rep.FormatA != "ext" {
		t.Errorf("Diff of /etc/hello.txt: fields %s (format %s, parse error %v); want i_size_lo and data", got, rep.FormatA, rep.ParseErrA)
	}
}
