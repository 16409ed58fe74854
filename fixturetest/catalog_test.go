package fixturetest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/fixturegen/fixturegen/catalog"
	"github.com/fixturegen/fixturegen/fixturetest"
)

// TestRunner builds a catalogue with fixturetest.Runner, verifies it, and
// checks that a second build is up to date.
func TestRunner(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "src"), 0o755)
	os.WriteFile(filepath.Join(dir, "src", "hello.txt"), []byte("hello\n"), 0o644)
	os.WriteFile(filepath.Join(dir, catalog.ManifestName), []byte(
		"floppy.img: makefs -t msdos -s 1440k -T 0 floppy.img src\nlib.a: ar rcs lib.a src/hello.txt\n"), 0o644)
	cat, err := catalog.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	o := &catalog.Options{Runner: fixturetest.Runner()}
	res, err := cat.Build(ctx, o)
	if err != nil || res.Built != 2 || !res.SumsCreated {
		t.Fatalf("first Build: %v, %v", res, err)
	}
	if res, err := cat.Build(ctx, o); err != nil || res.UpToDate != 2 {
		t.Errorf("second Build: %v, %v", res, err)
	}
	if res, err := cat.Verify(ctx, o); err != nil || res.Built != 2 {
		t.Errorf("Verify: %v, %v", res, err)
	}
}
