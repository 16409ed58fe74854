package references

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeRefs makes a references folder whose every tool's build.sh installs
// its commands as small scripts, and returns it.
func fakeRefs(t *testing.T) string {
	t.Helper()
	refs := filepath.Join(t.TempDir(), "references")
	for _, tool := range Tools {
		dir := filepath.Join(refs, tool.Dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		script := "set -e\n"
		for _, c := range tool.Commands {
			script += "echo built >\"$1/" + c + "\"\n"
		}
		if err := os.WriteFile(filepath.Join(dir, "build.sh"), []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return refs
}

func TestFind(t *testing.T) {
	t.Parallel()
	refs := fakeRefs(t)
	deep := filepath.Join(filepath.Dir(refs), "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := Find(deep)
	if err != nil || got != refs {
		t.Errorf("Find(%s) = %q, %v; want %q", deep, got, err, refs)
	}
	if _, err := Find(t.TempDir()); !errors.Is(err, ErrNoSources) {
		t.Errorf("Find of a folder with no references above: %v, want ErrNoSources", err)
	}
	// This repository's own folder is found from the package.
	if _, err := Find("."); err != nil {
		t.Errorf("Find(.) in the repository: %v", err)
	}
}

func TestKeyFollowsSources(t *testing.T) {
	t.Parallel()
	refs := fakeRefs(t)
	tool := Tools[0]
	k1, err := Key(refs, tool)
	if err != nil {
		t.Fatal(err)
	}
	if k2, _ := Key(refs, tool); k2 != k1 || len(k1) != 16 {
		t.Fatalf("Key twice: %q, %q; want the same 16 digits", k1, k2)
	}
	if err := os.WriteFile(filepath.Join(refs, tool.Dir, "src.tar.gz"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if k3, _ := Key(refs, tool); k3 == k1 {
		t.Errorf("Key did not change with a new source file")
	}
	if k4, _ := Key(refs, Tools[1]); k4 == k1 {
		t.Errorf("two tools share the key %q", k1)
	}
}

func TestBuild(t *testing.T) {
	refs := fakeRefs(t)
	t.Setenv(CacheEnv, t.TempDir()) // not parallel: t.Setenv
	tool := Tools[0]
	var log strings.Builder
	dir, built, err := Build(refs, tool, &log)
	if err != nil || !built {
		t.Fatalf("Build: %v, built %v; log %s", err, built, log.String())
	}
	if got, ok := Built(refs, tool); !ok || got != dir {
		t.Errorf("Built after Build = %q, %v; want %q, true", got, ok, dir)
	}
	if _, again, err := Build(refs, tool, &log); err != nil || again {
		t.Errorf("second Build: %v, built %v; want it kept", err, again)
	}
	// New sources: a new folder, and the old one is removed, with what a
	// killed build left long ago (a recent one may be a build running beside).
	killed := filepath.Join(filepath.Dir(dir), ".build-"+tool.Dir+"-killed")
	recent := filepath.Join(filepath.Dir(dir), ".build-"+tool.Dir+"-running")
	for _, d := range []string{killed, recent} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	long := time.Now().Add(-2 * staleBuild)
	if err := os.Chtimes(killed, long, long); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(refs, tool.Dir, "src.tar.gz"), []byte("v2"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir2, built, err := Build(refs, tool, &log)
	if err != nil || !built || dir2 == dir {
		t.Fatalf("Build of new sources = %q, %v, %v; want a new folder", dir2, built, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the build of the old sources is still there: %v", err)
	}
	if _, err := os.Stat(killed); !os.IsNotExist(err) {
		t.Errorf("what a killed build left is still there: %v", err)
	}
	if err := os.Remove(recent); err != nil {
		t.Errorf("a recent build folder was removed: %v", err)
	}
	ents, _ := os.ReadDir(filepath.Dir(dir2))
	if len(ents) != 1 {
		t.Errorf("cache holds %d entries, want the one build (no temporary folder left)", len(ents))
	}
	// A build.sh that fails leaves nothing and says what it needs.
	bad := Tools[1]
	if err := os.WriteFile(filepath.Join(refs, bad.Dir, "build.sh"), []byte("echo no compiler >&2; exit 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	if _, _, err := Build(refs, bad, &log); err == nil || !strings.Contains(err.Error(), bad.Needs) || !strings.Contains(log.String(), "no compiler") {
		t.Errorf("failing build: %v (log %q); want an error naming what it needs and the log", err, log.String())
	}
	if ents, _ := os.ReadDir(filepath.Dir(dir2)); len(ents) != 1 {
		t.Errorf("a failed build left %d entries in the cache, want 1", len(ents))
	}
}

func TestToolOf(t *testing.T) {
	t.Parallel()
	if tool, ok := ToolOf("mke2fs-1.47.4"); !ok || tool.Dir != "e2fsprogs" {
		t.Errorf("ToolOf(mke2fs-1.47.4) = %v, %v", tool, ok)
	}
	if _, ok := ToolOf("mkfs.fat"); ok {
		t.Error("ToolOf(mkfs.fat): a Debian tool taken for a reference")
	}
}
