package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"sync"
)

// modulePath is the module whose code builds the fixtures.
const modulePath = "github.com/fixturegen/fixturegen"

// Generator returns the identity of the running program for up-to-date
// checks, so that a different fixturegen rebuilds everything and the same
// one, however it was started, does not:
//
//   - "mod PATH@VERSION ..." when fixturegen comes from a released module
//     version (go tool fixturegen, a magefile's binary, go install @v1.2.3),
//     with the versions of every module linked in;
//   - "vcs REVISION ..." when fixturegen is the main module built from an
//     unmodified checkout (debug.ReadBuildInfo's vcs.revision with
//     vcs.modified=false), with the versions of its dependencies;
//   - otherwise "exe sha256:HEX", the SHA-256 of the executable's contents
//     (go run's cached binary, a test binary), never its time.
//
// It is computed once per process.
func Generator() string { return generator() }

var generator = sync.OnceValue(func() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		if id := buildID(bi); id != "" {
			return id
		}
	}
	return exeID()
})

// buildID returns the identity that bi gives, or "" when it gives none.
func buildID(bi *debug.BuildInfo) string {
	var deps strings.Builder
	for _, m := range bi.Deps {
		if m.Replace != nil {
			if m.Replace.Version == "" {
				return "" // a directory replacement: no version says what it holds
			}
			m = m.Replace
		}
		deps.WriteString(" " + m.Path + "@" + m.Version + " " + m.Sum)
	}
	released := func(v string) bool { return v != "" && v != "(devel)" }
	if bi.Main.Path == modulePath {
		if released(bi.Main.Version) && !strings.Contains(bi.Main.Version, "+dirty") {
			return "mod " + modulePath + "@" + bi.Main.Version + deps.String()
		}
		var rev, modified string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
		if rev != "" && modified == "false" {
			return "vcs " + rev + deps.String()
		}
		return ""
	}
	for _, m := range bi.Deps {
		if m.Path == modulePath && m.Replace == nil && released(m.Version) {
			return "mod " + bi.Main.Path + deps.String()
		}
	}
	return ""
}

// exeID hashes the executable's contents.
func exeID() string {
	exe, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	f, err := os.Open(exe)
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unknown"
	}
	return "exe sha256:" + hex.EncodeToString(h.Sum(nil))
}
