package cli

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/catalog"
)

// TestPlanHostOwners plans makefs lines whose -F spec names owners: a name
// without its number and without -N is refused under --metadata=git (the
// catalogue's default) and makes the host's user databases optional host
// inputs under --metadata=host; with the numbers, or with -N, the host's
// databases are no input.
func TestPlanHostOwners(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"src/a.txt":   "a\n",
		"names.mtree": "#mtree\n/set uname=root gname=root\n. type=dir mode=0755\na.txt type=file mode=0644\n",
		"group.mtree": "#mtree\n/set uid=0 gname=root\n. type=dir mode=0755\na.txt type=file mode=0644\n",
		"ids.mtree":   "#mtree\n/set uname=root uid=0 gname=root gid=0\n. type=dir mode=0755\na.txt type=file mode=0644\n",
		"db/passwd":   "root:x:0:0::/:/bin/sh\n",
		"db/group":    "root:x:0:\n",
	})
	hostInputs := func(p *catalog.Plan) []string {
		var host []string
		for _, in := range p.Inputs {
			if in.Host {
				if !in.Optional {
					t.Errorf("host input %s is not optional", in.Path)
				}
				host = append(host, in.Path)
			}
		}
		return host
	}
	for _, tc := range []struct {
		args    string
		refused string // the name the error gives
		host    bool   // the host's databases are inputs
	}{
		{args: "-F names.mtree", refused: "uname=root"},
		{args: "-F group.mtree", refused: "gname=root"},
		{args: "--metadata=host -F names.mtree", host: true},
		{args: "--metadata=host -F group.mtree", host: true},
		{args: "-F ids.mtree"},
		{args: "--metadata=host -F ids.mtree"},
		{args: "-N db -F names.mtree"},
		{args: "--metadata=host -N db -F names.mtree"},
	} {
		args := append(append([]string{"makefs", "-t", "cd9660", "-T", "0"}, strings.Fields(tc.args)...), "o.iso", "src")
		p, err := Runner().Plan(dir, args)
		if tc.refused != "" {
			if !errors.Is(err, errHostOwners) || !strings.HasPrefix(err.Error(), tc.refused+": ") {
				t.Errorf("%s: %v, want %s refused", tc.args, err, tc.refused)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.args, err)
			continue
		}
		got := hostInputs(p)
		if want := []string(nil); tc.host {
			want = hostUserDatabases
			if !slices.Equal(got, want) {
				t.Errorf("%s: host inputs %q, want %q", tc.args, got, want)
			}
		} else if len(got) != 0 {
			t.Errorf("%s: host inputs %q, want none", tc.args, got)
		}
	}
}

// TestBuildHostOwners builds and verifies a catalogue whose spec names
// owners that the host's databases resolve (--metadata=host): verify
// does not refuse the databases for lying outside the folder, and a
// build sees a change to them. The databases are files of the test
// (hostUserDatabases), not /etc's, which a test must not edit; the names
// themselves resolve through the host as makefs resolves them. The test
// replaces a package variable, so it does not run in parallel.
func TestBuildHostOwners(t *testing.T) {
	// not parallel: it sets the package variable hostUserDatabases.
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod":                "module m\n",
		"fixtures/manifest":     "o.iso: makefs -t cd9660 -T 0 --metadata=host -o rockridge -F owners.mtree o.iso src\n",
		"fixtures/src/a.txt":    "a\n",
		"fixtures/owners.mtree": "#mtree\n/set uname=root gname=root\n. type=dir mode=0755\na.txt type=file mode=0644\n",
		"etc/passwd":            "root:x:0:0::/:/bin/sh\n",
		"etc/group":             "root:x:0:\n",
	})
	old := hostUserDatabases
	hostUserDatabases = []string{filepath.Join(root, "etc", "passwd"), filepath.Join(root, "etc", "group")}
	defer func() { hostUserDatabases = old }()
	run := buildRunner(t)
	if code, stdout, stderr := run(root, "build"); code != 0 {
		t.Fatalf("build: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := run(root, "verify"); code != 0 {
		t.Errorf("verify: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, _ := run(root, "build"); code != 0 || !strings.Contains(stdout, "0 built, 1 up to date") {
		t.Fatalf("second build: exit %d\n%s", code, stdout)
	}
	os.WriteFile(filepath.Join(root, "etc", "group"), []byte("root:x:0:x\n"), 0o644)
	if code, stdout, stderr := run(root, "build"); code != 0 || !strings.Contains(stdout, "1 built, 0 up to date") {
		t.Errorf("build after the group database changed: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestBuildUserDBEntry changes an entry of a -N group database, keeping
// the file's size and times: the build sees it, and the image changes.
func TestBuildUserDBEntry(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod":                "module m\n",
		"fixtures/manifest":     "o.iso: makefs -t cd9660 -T 0 -o rockridge -N db -F owners.mtree o.iso src\n",
		"fixtures/src/a.txt":    "a\n",
		"fixtures/owners.mtree": "#mtree\n/set uname=build gname=build\n. type=dir mode=0755\na.txt type=file mode=0644\n",
		"fixtures/db/passwd":    "build:x:1001:1001::/:/bin/sh\n",
		"fixtures/db/group":     "build:x:1001:\n",
	})
	run := buildRunner(t)
	if code, stdout, stderr := run(root, "build"); code != 0 {
		t.Fatalf("build: exit %d\n%s%s", code, stdout, stderr)
	}
	group := filepath.Join(root, "fixtures", "db", "group")
	fi, _ := os.Stat(group)
	os.WriteFile(group, []byte("build:x:1002:\n"), 0o644)
	os.Chtimes(group, fi.ModTime(), fi.ModTime())
	code, _, stderr := run(root, "build")
	if code == 0 || !strings.Contains(stderr, "o.iso: sum mismatch") {
		t.Errorf("build after the group's id changed: exit %d, want a sum mismatch\n%s", code, stderr)
	}
}
