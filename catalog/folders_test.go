package catalog

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

// TestBuildMakesOutputFolders checks that Build makes the folders of
// outputs that do not exist yet, removes at the end of the run those it
// made that are left empty (their outputs failed), keeps those that hold
// anything, says a file in a folder's place, and that Verify makes them
// in its copy; and that Clean removes the outputs' folders left empty,
// keeping the catalogue folder and a folder that holds anything else.
func TestBuildMakesOutputFolders(t *testing.T) {
	t.Parallel()
	c := newCatalog(t, map[string]string{
		ManifestName: "out/sub/a: write out/sub/a x\n" +
			"out/b: concat out/b missing\n" + // fails: no input missing
			"failed/deep/c: concat failed/deep/c missing\n" +
			"f/d: write f/d y\n" +
			"kept/e: write kept/e z\n",
		"f":          "a file where a folder should be\n",
		"kept/.keep": "",
	})
	res, err := c.Build(context.Background(), &Options{Runner: &fakeRunner{}, Update: true})
	if err == nil || res.Built != 2 || res.Failed != 3 {
		t.Fatalf("Build = %+v, %v; want 2 built, 3 failed", res, err)
	}
	var errs []string
	for _, r := range res.Entries {
		errs = append(errs, r.Errors...)
	}
	if want := "manifest:4: f/d: cannot make the output folder f: a file is in its place"; !strings.Contains(strings.Join(errs, "\n"), want) {
		t.Errorf("Build errors %q, want %q", errs, want)
	}
	want := []string{LockName, StateName, "f", "kept", "kept/.keep", "kept/e", ManifestName, "out", "out/sub", "out/sub/a"}
	if got := listFiles(t, c.Dir); !reflect.DeepEqual(got, want) {
		t.Errorf("after Build: %q, want %q (out/b failed: out stays for out/sub/a; failed/deep goes)", got, want)
	}

	c.Entries = []Entry{c.Entries[0], c.Entries[4]} // those that build
	if _, err := c.Build(context.Background(), &Options{Runner: &fakeRunner{}, Update: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Verify(context.Background(), &Options{Runner: &fakeRunner{}}); err != nil {
		t.Errorf("Verify: %v", err)
	}
	if n, err := c.Clean(context.Background(), nil); err != nil || n != 2 {
		t.Fatalf("Clean = %d, %v; want 2 removed", n, err)
	}
	want = []string{LockName, "f", SumName, "kept", "kept/.keep", ManifestName}
	if got := listFiles(t, c.Dir); !reflect.DeepEqual(got, want) {
		t.Errorf("after Clean: %q, want %q", got, want)
	}
}
