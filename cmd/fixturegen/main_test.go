package main

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestNoCgo checks that the command does not link runtime/cgo, even where
// cgo is on: a binary that does starts through the dynamic loader and
// libc's initialisation, which cost every run a few milliseconds and
// about 80 page faults (os/user was the package that pulled it in;
// fstree.HostUsers reads /etc/passwd itself), and a no-op catalogue
// build pays that start (BENCHMARKS.md, issue 34).
func TestNoCgo(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("go", "list", "-deps", ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, p := range []string{"runtime/cgo", "os/user", "net"} {
		if slices.Contains(deps, p) {
			t.Errorf("fixturegen imports %s", p)
		}
	}
}
