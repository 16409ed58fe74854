package catalog

import (
	"runtime/debug"
	"strings"
	"testing"
)

// TestBuildIDEntryPoints gives buildID the build information of the three
// ways a user module runs fixturegen v1.2.3, as the go command writes them:
// go tool (fixturegen stamped as the main module), a magefile's binary (no
// main module path, fixturegen a dependency) and a test binary (the user's
// module as main, no dependencies at all, package catalog compiled from the
// module cache). All give one identity; another fixturegen version or Go
// toolchain gives another.
func TestBuildIDEntryPoints(t *testing.T) {
	t.Parallel()
	const cached = "/home/u/go/pkg/mod/" + modulePath + "@v1.2.3/catalog/identity.go"
	sys := &debug.Module{Path: "golang.org/x/sys", Version: "v0.50.0", Sum: "h1:x"}
	user := debug.Module{Path: "example.com/user", Version: "(devel)"}
	goTool := debug.BuildInfo{GoVersion: "go1.26.8", Path: modulePath + "/cmd/fixturegen",
		Main: debug.Module{Path: modulePath, Version: "v1.2.3", Sum: "h1:y"}, Deps: []*debug.Module{sys}}
	mage := debug.BuildInfo{GoVersion: "go1.26.8", Path: "command-line-arguments",
		Deps: []*debug.Module{{Path: modulePath, Version: "v1.2.3", Sum: "h1:y"}, sys}}
	test := debug.BuildInfo{GoVersion: "go1.26.8", Path: "example.com/user.test", Main: user}
	testDeps := debug.BuildInfo{GoVersion: "go1.26.8", Path: "example.com/user.test", Main: user,
		Deps: []*debug.Module{{Path: "github.com/rogpeppe/go-internal", Version: "v1.16.0"}, {Path: modulePath, Version: "v1.2.3"}, {Path: sys.Path, Version: "v0.51.0"}}}
	want := "mod " + modulePath + "@v1.2.3 go1.26.8"
	for _, tc := range []struct {
		what string
		bi   debug.BuildInfo
		file string
	}{
		{"go tool fixturegen", goTool, cached},
		{"go tool fixturegen, -trimpath", goTool, modulePath + "@v1.2.3/catalog/identity.go"},
		{"go install @v1.2.3", goTool, cached},
		{"go tool mage", mage, cached},
		{"go test", test, cached},
		{"go test, -trimpath", test, modulePath + "@v1.2.3/catalog/identity.go"},
		{"a test binary listing other dependencies, no sums", testDeps, cached},
	} {
		if got := buildID(&tc.bi, tc.file); got != want {
			t.Errorf("%s: buildID = %q, want %q", tc.what, got, want)
		}
	}

	other := mage
	other.Deps = []*debug.Module{{Path: modulePath, Version: "v1.2.4", Sum: "h1:z"}, sys}
	if got := buildID(&other, cached); got == want || got == "" {
		t.Errorf("fixturegen v1.2.4: buildID = %q, want another identity than v1.2.3's", got)
	}
	if got := buildID(&test, strings.Replace(cached, "v1.2.3", "v1.2.4", 1)); got == want || got == "" {
		t.Errorf("a test binary of fixturegen v1.2.4: buildID = %q, want another identity than v1.2.3's", got)
	}
	newGo := goTool
	newGo.GoVersion = "go1.27.0"
	if got := buildID(&newGo, cached); got == want || got == "" {
		t.Errorf("another Go toolchain: buildID = %q, want another identity", got)
	}
}

// TestBuildID checks the identities of fixturegen's own checkout, of
// replacements, and of builds that give none (so that Generator hashes the
// executable).
func TestBuildID(t *testing.T) {
	t.Parallel()
	deps := []*debug.Module{{Path: "golang.org/x/sys", Version: "v0.50.0", Sum: "h1:x"}}
	checkout := "/src/fixturegen/catalog/identity.go"
	for _, tc := range []struct {
		what string
		bi   debug.BuildInfo
		file string
		want string
	}{
		{"a clean checkout", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: modulePath, Version: "(devel)"}, Deps: deps,
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}}},
			checkout, "vcs abc go1.26.8"},
		{"a modified checkout", debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}}}, checkout, ""},
		{"go run, no VCS stamp", debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "(devel)"}}, checkout, ""},
		{"a checkout's test binary", debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "(devel)"}}, checkout, ""},
		{"a pseudo-version with +dirty", debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "v0.0.0-2026-abc+dirty"}}, checkout, ""},
		{"a user's module replacing fixturegen with a directory", debug.BuildInfo{Main: debug.Module{Path: "example.com/user"},
			Deps: []*debug.Module{{Path: modulePath, Version: "v1.2.3", Replace: &debug.Module{Path: "../fixturegen"}}}},
			"/home/u/go/pkg/mod/" + modulePath + "@v1.2.3/catalog/identity.go", ""},
		{"a user's module replacing fixturegen with a fork", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "example.com/user"},
			Deps: []*debug.Module{{Path: modulePath, Version: "v1.2.3", Replace: &debug.Module{Path: "example.com/fork", Version: "v1.2.4"}}}},
			"/home/u/go/pkg/mod/example.com/fork@v1.2.4/catalog/identity.go", "mod example.com/fork@v1.2.4 go1.26.8"},
		{"a test binary of a directory replacement", debug.BuildInfo{Main: debug.Module{Path: "example.com/user"}}, "/src/fixturegen/catalog/identity.go", ""},
		{"a test binary, escaped version", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "example.com/user"}},
			"/m/" + modulePath + "@v1.3.0-!r!c1/catalog/identity.go", "mod " + modulePath + "@v1.3.0-RC1 go1.26.8"},
		{"a test binary, another module ending in fixturegen", debug.BuildInfo{Main: debug.Module{Path: "example.com/user"}},
			"/m/example.com/x" + modulePath + "@v1.2.3/catalog/identity.go", ""},
	} {
		if got := buildID(&tc.bi, tc.file); got != tc.want {
			t.Errorf("%s: buildID = %q, want %q", tc.what, got, tc.want)
		}
	}
	if got := buildID(nil, checkout); got != "" {
		t.Errorf("no build information: buildID = %q", got)
	}
	if id := exeID(); !strings.HasPrefix(id, "exe sha256:") || exeID() != id {
		t.Errorf("exeID = %q", id)
	}
}
