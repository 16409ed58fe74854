package cd9660

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// These tests check that bsdtar takes images whose last record with an
// extent is a link.

// TestLastLinkBsdtar lists, with bsdtar, images whose last record with
// an extent is a symbolic link with a long target, which bsdtar refused
// ("Invalid location of extent of file") when the link's extent was the
// end of the volume. (Without the trailing padding bsdtar does not take
// an image this small for ISO 9660 at all: it reads 48 KiB to decide.)
func TestLastLinkBsdtar(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "bsdtar")
	for _, targets := range [][]string{{longLinkTarget}, {"a", longLinkTarget}, {strings.Repeat("x/", 129) + "target"}} {
		dir := linkTree(t, targets)
		out := run(t, "bsdtar", "-tf", writeImage(t, dir, "rockridge"))
		if want := fmt.Sprintf("l%03d\n", len(targets)-1); !strings.Contains(out, want) {
			t.Errorf("bsdtar -tf lists %q, not %q", out, want)
		}
	}
}
