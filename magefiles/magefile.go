//go:build mage

// This is fixturegen's own magefile. Run "go tool mage -l" for the targets;
// mage is a tool dependency in go.mod, so nothing needs installing.
//
// The catalogue targets (fixtures, fixturesVerify, fixturesUpdate,
// fixturesClean) come from the same package users import in their
// magefiles.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/magefile/mage/sh"

	"github.com/fixturegen/fixturegen/internal/references"

	// mage:import
	_ "github.com/fixturegen/fixturegen/magefixtures"
)

// Test runs every test of the module (go test ./...).
//
// Tests that need an external validator skip when it is missing, unless
// FIXTUREGEN_REQUIRE_TOOLS=1 (as in .ci/run), which makes them fail.
func Test() error {
	return sh.RunV("go", "test", "./...")
}

// References builds the reference tools (FreeBSD's makefs and mkimg, e2fsprogs 1.47.4) from references/ into the cache, where the tests find them.
//
// Each tool is built by its references/NAME/build.sh into a folder of the
// user's cache named by a hash of its sources (FIXTUREGEN_REFERENCES
// overrides the cache folder); one already built from the same sources is
// kept. The tests put those folders at the front of their PATH, so that
// FIXTUREGEN_REQUIRE_TOOLS=1 go test ./... runs every byte-identity test
// with nothing else to set up but the apt validators (.ci/run's list).
// Building needs gcc, make, pkg-config, libbsd-dev and zlib1g-dev.
func References() error {
	refs, err := references.Find(".")
	if err != nil {
		return err
	}
	for _, t := range references.Tools {
		var log strings.Builder
		dir, built, err := references.Build(refs, t, &log)
		if err != nil {
			os.Stderr.WriteString(log.String())
			return err
		}
		state := "up to date"
		if built {
			state = "built"
		}
		fmt.Printf("%-15s %s: %s\n", t.Dir, state, dir)
	}
	return nil
}

// Bench measures the builders against the copy floor on the benchmark trees, then runs the Go benchmarks (imgkit, catalogue no-op build).
//
// The first part is bench/cmd/fsbench (a separate module under bench/): it
// generates the trees under bench/.trees on first use (about 840 MiB) and
// prints a markdown table of times and ratios to the floor. Choose trees
// with FIXTUREGEN_BENCH_TREES=small,medium,midsize,big and runs with
// FIXTUREGEN_BENCH_RUNS (default 3). Then fsbench -mkimg measures
// fixturegen mkimg beside freebsd-mkimg on a GPT disk with a 1 GiB
// partition file and a 2 TiB disk of sparse partitions (time, peak RSS
// and RssAnon; it makes the 1 GiB file and an 8 GiB sparse one under
// bench/.trees). The next part is
// go test -run '^$' -bench . ./imgkit/..., the third the catalogue's
// no-op build benchmark (BenchmarkCatalogNoop in internal/cli), which
// reports a no-op build of 100 fixtures over 5,000 input files as a
// percentage of a full build and the stat calls per fixture.
func Bench() error {
	args := []string{"run", "./cmd/fsbench"}
	if t := os.Getenv("FIXTUREGEN_BENCH_TREES"); t != "" {
		args = append(args, "-trees", t)
	}
	if r := os.Getenv("FIXTUREGEN_BENCH_RUNS"); r != "" {
		args = append(args, "-runs", r)
	}
	fmt.Println("## go " + strings.Join(args, " ") + " (in bench/)")
	cmd := exec.Command("go", args...)
	cmd.Dir = "bench"
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("fsbench: %v", err)
	}
	// The disks of mkimg: fixturegen beside freebsd-mkimg (skipped when
	// it is not on PATH) on a 1 GiB partition file and a 2 TiB sparse
	// disk, with each tool's time and memory.
	margs := []string{"run", "./cmd/fsbench", "-mkimg"}
	if r := os.Getenv("FIXTUREGEN_BENCH_RUNS"); r != "" {
		margs = append(margs, "-runs", r)
	}
	fmt.Println("\n## go " + strings.Join(margs, " ") + " (in bench/)")
	cmd = exec.Command("go", margs...)
	cmd.Dir = "bench"
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("fsbench -mkimg: %v", err)
	}
	// -v, so that a benchmark whose peer (GNU ar, llvm-ar) is missing says
	// so with its SKIP line instead of dropping the row silently.
	fmt.Println("\n## go test -v -run '^$' -bench . ./imgkit/...")
	if err := sh.RunV("go", "test", "-v", "-run", "^$", "-bench", ".", "./imgkit/..."); err != nil {
		return err
	}
	// The catalogue's no-op build: 100 FAT fixtures over the medium tree's
	// 5,000 files; noop/full-% is the no-op build's time as a share of a
	// full build's, syscalls/fixture the system calls of its up-to-date checks per fixture.
	fmt.Println("\n## go test -run '^$' -bench CatalogNoop -benchtime 10x ./internal/cli")
	return sh.RunV("go", "test", "-run", "^$", "-bench", "CatalogNoop", "-benchtime", "10x", "./internal/cli")
}
