package tooltest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/references"
)

func TestSkipNote(t *testing.T) {
	// not parallel: it swaps the package's record of skips.
	skips.Lock()
	count, tools, reasons := skips.count, skips.tools, skips.reasons
	skips.count, skips.tools, skips.reasons = 0, nil, nil
	skips.Unlock()
	defer func() {
		skips.Lock()
		skips.count, skips.tools, skips.reasons = count, tools, reasons
		skips.Unlock()
	}()
	if note := skipNote("imgkit/ffs"); note != "" {
		t.Errorf("note with nothing skipped: %q", note)
	}
	Skipped("freebsd-makefs")
	Skipped("freebsd-makefs")
	Skipped("fsstat")
	skipped("", "making a device needs root")
	note := skipNote("imgkit/ffs")
	for _, want := range []string{
		"imgkit/ffs: 4 checks skipped",
		"for want of freebsd-makefs, fsstat",
		"making a device needs root",
		"to run them: go tool mage references && sudo apt-get install sleuthkit",
		"FIXTUREGEN_REQUIRE_TOOLS=1 makes them fail",
	} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q lacks %q", note, want)
		}
	}
	if strings.Count(note, "\n") != 1 {
		t.Errorf("note %q is not one line", note)
	}
}

// TestReferencesOnPath checks that each reference the repository's
// sources built (go tool mage references) is what the tests run, found
// without any PATH change; one not built is a skip (a failure in CI).
func TestReferencesOnPath(t *testing.T) {
	t.Parallel()
	if ReferencesDir() == "" {
		t.Fatal("no references folder found above the package")
	}
	for _, tool := range references.Tools {
		dir, ok := references.Built(ReferencesDir(), tool)
		if !ok {
			Need(t, tool.Commands[0])
			continue
		}
		if got := Need(t, tool.Commands[0]); filepath.Dir(got) != dir {
			t.Errorf("%s runs from %s, want the build of the references in %s", tool.Commands[0], got, dir)
		}
	}
}
