package makefs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

func TestParseMetadata(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "src"), 0o755)
	for _, tc := range []struct {
		args     []string
		want     fstree.Metadata
		imageArg int
	}{
		{[]string{"i", "src"}, fstree.MetadataHost, 0},
		{[]string{"--metadata=git", "i", "src"}, fstree.MetadataGit, 1},
		{[]string{"-t", "ffs", "--metadata=git", "-s", "1m", "i", "src"}, fstree.MetadataGit, 5},
		{[]string{"-xZ", "--metadata=git", "-Fspec", "--metadata=host", "i", "src"}, fstree.MetadataHost, 4},
		{[]string{"--metadata=git", "--", "i", "src"}, fstree.MetadataGit, 2},
	} {
		os.WriteFile(filepath.Join(dir, "spec"), nil, 0o644)
		c, err := Parse(tc.args, dir, noEnv)
		if err != nil {
			t.Errorf("makefs %q: %v", tc.args, err)
			continue
		}
		if c.Metadata != tc.want || c.ImageArg != tc.imageArg {
			t.Errorf("makefs %q: Metadata %v, ImageArg %d; want %v, %d", tc.args, c.Metadata, c.ImageArg, tc.want, tc.imageArg)
		}
		if o, err := c.TreeOptions(); err != nil || o.Metadata != tc.want {
			t.Errorf("makefs %q: TreeOptions %+v, %v; want Metadata %v", tc.args, o, err, tc.want)
		}
	}
	// After the operands begin, --metadata is an operand (here a
	// missing extra directory), as every flag is for getopt(3).
	if _, err := Parse([]string{"i", "src", "--metadata=git"}, dir, noEnv); err == nil || !strings.Contains(err.Error(), `cannot stat "--metadata=git"`) {
		t.Errorf("--metadata after the operands: %v", err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--metadata=bogus", "i", "src"}, "makefs: --metadata=bogus: want --metadata=git"},
		{[]string{"--metadata=", "i", "src"}, "makefs: --metadata=: want --metadata=git"},
		{[]string{"--metadata", "git", "i", "src"}, "makefs: option --metadata requires an argument: --metadata=value"},
		{[]string{"--owner=0", "i", "src"}, "makefs: unknown option --owner"},
	} {
		_, err := Parse(tc.args, dir, noEnv)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("makefs %q: error %v, want %q", tc.args, err, tc.want)
			continue
		}
		if _, ok := err.(*UsageError); !ok {
			t.Errorf("makefs %q: %T is not a *UsageError", tc.args, err)
		}
	}
}

// TestTreeMetadata checks that Command.Tree applies --metadata=git to the
// source directory and the extra directories, and then the -F spec, whose
// keywords win.
func TestTreeMetadata(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, f := range []string{"one/x", "one/run", "two/y"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte(f), 0o600)
	}
	os.Chmod(filepath.Join(dir, "one"), 0o700)
	os.Chmod(filepath.Join(dir, "two"), 0o700)
	os.Chmod(filepath.Join(dir, "one", "x"), 0o600)
	os.Chmod(filepath.Join(dir, "two", "y"), 0o600)
	os.Chmod(filepath.Join(dir, "one", "run"), 0o700)
	os.WriteFile(filepath.Join(dir, "spec"), []byte("#mtree\n./x type=file mode=0400 uid=3 gid=4\n"), 0o644)
	modes := func(args ...string) string {
		t.Helper()
		c, err := Parse(args, dir, noEnv)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := c.Tree(nil)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		tr.Walk(func(p string, n *fstree.Node) error {
			b.WriteString(p + ":" + fmtMode(n) + " ")
			return nil
		})
		return strings.TrimSpace(b.String())
	}
	if g, w := modes("--metadata=git", "-F", "spec", "i", "one", "two"), ".:755,0:0 run:755,0:0 x:400,3:4 y:644,0:0"; g != w {
		t.Errorf("--metadata=git -F spec: %s, want %s", g, w)
	}
	if g := modes("-F", "spec", "i", "one", "two"); !strings.Contains(g, "y:600,") || !strings.Contains(g, ".:700,") {
		t.Errorf("--metadata=host: %s, want the host's modes (y 0600, . 0700)", g)
	}
}

// fmtMode writes a node's permission bits and owner as "755,0:0".
func fmtMode(n *fstree.Node) string { return fmt.Sprintf("%o,%d:%d", n.Mode, n.UID, n.GID) }
