package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/makefs"
	"github.com/fixturegen/fixturegen/imgkit/makefs/fsopt"
)

// splashOptions is the Options type of the splashfs type of
// registerSplashFS registers splashfs, for the tests that run this test
// binary as fixturegen with the test types (testTypes).
func registerSplashFS() {
	makefs.RegisterFSType(makefs.FSType[splashOptions]{
		Name: "splashfs",
		Help: func() []fsopt.Option { return []fsopt.Option{{Key: "picture", Letter: "P", Field: "Picture"}} },
		ParseOption: func(o *splashOptions, key, value string) error {
			if key != "picture" && key != "P" {
				return errSplashOption
			}
			o.Picture = value
			return nil
		},
		ErrOption: errSplashOption,
		Common:    func(o *splashOptions) makefs.Common { return makefs.Common{Timestamp: &o.Timestamp} },
		Flags: func(c *makefs.Command, o *splashOptions) error {
			if o.Picture != "" && !filepath.IsAbs(o.Picture) {
				o.Picture = filepath.Join(c.Dir, o.Picture)
			}
			return nil
		},
		Files: func(o *splashOptions) []string { return []string{o.Picture} },
		WriteFile: func(path string, _ fstree.Source, o *splashOptions) error {
			b, err := os.ReadFile(o.Picture)
			if err != nil {
				return err
			}
			return os.WriteFile(path, b, 0o644)
		},
	})
}

// TestBuildTypeFileOption: a file option whose field and key no list of
// the planner names.
type splashOptions struct {
	Picture   string
	Timestamp time.Time
}

var errSplashOption = errors.New("splashfs: bad option")

// TestBuildTypeFileOption takes a makefs type (splashfs) whose -o option names a
// file, and checks that the planner makes that file an input, from the
// type's contract (makefs.FSType.Files) alone, and that changing it
// rebuilds the entry.
func TestBuildTypeFileOption(t *testing.T) {
	t.Parallel()

	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod":                "module m\n",
		"fixtures/manifest":     "splash.img: makefs -t splashfs -T 0 -o P=art/logo.bin splash.img src\n",
		"fixtures/src/a.txt":    "a\n",
		"fixtures/art/logo.bin": "logo\n",
	})
	fx := filepath.Join(root, "fixtures")
	run := func(dir string, args ...string) (int, string, string) { return testTypes(t, dir, args...) }
	build := func() string {
		t.Helper()
		code, stdout, stderr := run(root, "build", "-update")
		if code != 0 {
			t.Fatalf("build -update: exit %d\n%s%s", code, stdout, stderr)
		}
		return stdout
	}
	build()
	if out := build(); !strings.HasPrefix(out, "build: 0 built, 1 up to date") {
		t.Fatalf("second build:\n%s", out)
	}
	later := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(fx, "art", "logo.bin"), later, later)
	if out := build(); !strings.Contains(out, "splash.img ") || !strings.Contains(out, "1 built") {
		t.Errorf("after touching art/logo.bin, not rebuilt:\n%s", out)
	}
	writeFiles(t, fx, map[string]string{"art/logo.bin": "LOGO!\n"})
	if out := build(); !strings.Contains(out, "1 built") {
		t.Errorf("after rewriting art/logo.bin, not rebuilt:\n%s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(fx, "splash.img")); string(b) != "LOGO!\n" {
		t.Errorf("splash.img = %q", b)
	}
}
