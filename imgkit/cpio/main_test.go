package cpio

import (
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestMain ends a run that skipped checks for want of a tool with a note
// naming them and the command that enables them.
func TestMain(m *testing.M) { tooltest.Main(m) }
