package cd9660

import (
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestMain removes the readdir shim tooltest.RunSorted builds.
func TestMain(m *testing.M) { tooltest.Main(m) }
