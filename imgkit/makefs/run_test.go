package makefs

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/ffs"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/msdos"
)

// TestRunInProcess runs makefs command lines in-process, as a Go program
// would, and checks that the images are the bytes the format packages
// build from the same tree and options (ffs's warnings, such as a density
// reduced, go to stderr as makefs's do): relative paths resolve against
// the directory given to Parse, extra directories merge, and the
// environment given to Parse supplies SOURCE_DATE_EPOCH.
func TestRunInProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, f := range []string{"one/a/x", "two/a/y", "two/b"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	getenv := func(k string) string {
		if k == fstree.SourceDateEpochEnv {
			return "1600000000"
		}
		return ""
	}
	// The tree the command builds: one with two merged into it, times
	// clamped to SOURCE_DATE_EPOCH.
	merged := func() *fstree.Tree {
		t.Helper()
		c, err := Parse([]string{"out", "one", "two"}, dir, getenv)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := c.Tree(nil)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	stamp := time.Unix(1600000000, 0)
	for _, tc := range []struct {
		args  []string
		build func() ([]byte, error)
	}{
		{[]string{"-t", "msdos", "-o", "fat_type=12", "msdos.img", "one", "two"}, func() ([]byte, error) {
			return msdos.Build(merged(), &msdos.Options{FATType: 12, Timestamp: stamp, ClampTimes: true})
		}},
		{[]string{"-t", "ffs", "-s", "4m", "ffs.img", "one", "two"}, func() ([]byte, error) {
			return ffs.Build(merged(), &ffs.Options{Size: 4 << 20, Timestamp: stamp, ClampTimes: true})
		}},
	} {
		c, err := Parse(tc.args, dir, getenv)
		if err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		if err := c.Run(&stdout, &stderr); err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		if stdout.Len() != 0 {
			t.Errorf("%q: stdout %q, want nothing", tc.args, stdout.String())
		}
		got, err := os.ReadFile(filepath.Join(dir, tc.args[len(tc.args)-3]))
		if err != nil {
			t.Fatal(err)
		}
		want, err := tc.build()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%q: %d bytes differ from the library's %d", tc.args, len(got), len(want))
		}
	}
}

// TestRunManifestFromStdin builds an image from an mtree manifest read from
// Command.Stdin ("-" as the source), with -D making a duplicate a warning
// written to Run's stderr.
func TestRunManifestFromStdin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c, err := Parse([]string{"-D", "-t", "msdos", "-T", "0", "img", "-"}, dir, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	c.Stdin = strings.NewReader("#mtree\n./d type=dir mode=0755 uid=0 gid=0\n./d type=dir mode=0700 uid=0 gid=0\n")
	var stderr bytes.Buffer
	if err := c.Run(nil, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "warning: duplicate definition") {
		t.Errorf("stderr %q, want the duplicate's warning", stderr.String())
	}
	fsys, err := msdos.OpenReader(filepath.Join(dir, "img"))
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	if fi, err := fsys.Stat("d"); err != nil || !fi.IsDir() {
		t.Errorf("the manifest's directory: %v, %v", fi, err)
	}
}

// TestRunHelpAndErrors checks -o help, which writes the type's options and
// builds nothing, an unknown -t, and an error of a type's Write said in
// the command's words.
func TestRunHelpAndErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c, err := Parse([]string{"-t", "msdos", "-o", "help", "img", "no-such-dir"}, dir, noEnv)
	if err != nil || !c.Help {
		t.Fatalf("-o help: %+v, %v", c, err)
	}
	var stdout bytes.Buffer
	if err := c.Run(&stdout, nil); err != nil || !strings.HasPrefix(stdout.String(), optionHelpIntro+"\n-t msdos:\n") ||
		!strings.Contains(stdout.String(), "sectors_per_cluster") {
		t.Errorf("-o help: %v, stdout %q", err, stdout.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "img")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("-o help made an image: %v", err)
	}
	if err := c.Run(nil, nil); err != nil {
		t.Errorf("-o help with nil writers: %v", err)
	}
	if err := os.Mkdir(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Tests running in parallel may have registered types of their own,
	// which sort after these three.
	const unknownType = `makefs: unknown file system type "nosuchfs" (types: cd9660, ffs, msdos`
	isUnknownType := func(err error) bool {
		var ue *UsageError
		return errors.As(err, &ue) && strings.HasPrefix(err.Error(), unknownType) && strings.HasSuffix(err.Error(), ")")
	}
	for _, args := range [][]string{{"-t", "nosuchfs", "img", "src"}, {"-t", "nosuchfs", "-o", "help"}} {
		if _, err := Parse(args, dir, noEnv); !isUnknownType(err) {
			t.Errorf("Parse %q: %v, want the usage error %q...)", args, err, unknownType)
		}
	}
	if err := (&Command{Type: "nosuchfs"}).Run(nil, nil); !isUnknownType(err) {
		t.Errorf("Run of an unknown type: %v, want the usage error %q...)", err, unknownType)
	}
	c, err = Parse([]string{"-t", "msdos", "-M", "2m", "-m", "1m", "img", "src"}, dir, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	err = c.Run(nil, nil)
	if err == nil || !strings.Contains(err.Error(), "-M (2097152) is larger than -m (1048576)") || !errors.Is(err, msdos.ErrParams) {
		t.Errorf("-M 2m -m 1m: %v, want it in flags and wrapping msdos.ErrParams", err)
	}
}
