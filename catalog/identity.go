package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
)

// modulePath is the module whose code builds the fixtures.
const modulePath = "github.com/fixturegen/fixturegen"

// Generator returns the identity of the running program for up-to-date
// checks: the same for every program that runs the same fixturegen code,
// whichever entry point it is (go tool fixturegen, a magefile's binary, a
// test binary, go install @v1.2.3), and different for different code:
//
//   - "mod PATH@VERSION GOVERSION" when fixturegen is a released module
//     version: a dependency at a version, or the main module stamped with
//     one (go install, go tool); a test binary, whose build information
//     lists no dependencies, is known by the module cache path its
//     package catalog was compiled from (PATH@VERSION/catalog);
//   - "vcs REVISION GOVERSION" when fixturegen is the main module built
//     from an unmodified checkout (vcs.revision with vcs.modified=false);
//   - otherwise "exe sha256:HEX", the SHA-256 of the executable's contents
//     (go run's cached binary, a test binary of a checkout, a directory
//     replacement), never its time.
//
// Only fixturegen's module and the Go toolchain, whose standard library
// (Unicode tables, sorting, time conversion) is compiled into every
// writer, decide an output's bytes. The other modules do not count: the
// writers use golang.org/x/sys only for system calls (stat, mmap, locks)
// whose answers come from the host, and go-internal and mage are the
// testscript and Mage harnesses; besides, each binary links a different
// subset of them, so naming them would give each entry point its own
// identity. Checksums (h1:) do not count either: some binaries carry them
// and others do not, and the go command verifies that a version's
// contents are the same everywhere.
//
// The generator is one of the three version strings an up-to-date check
// compares (see the package doc's "Up to date" section) and the only one
// never bumped by hand: a change to what an entry's key hashes bumps the
// key version, and one to the state file's lines or to what an input's
// fingerprint holds bumps the state file's version.
//
// It is computed once per process.
func Generator() string { return generator() }

var generator = sync.OnceValue(func() string {
	bi, _ := debug.ReadBuildInfo()
	if id := buildID(bi, sourceFile()); id != "" {
		return id
	}
	return exeID()
})

// buildID returns the identity that the build information bi and the
// compiled-in path of this file give, or "" when they give none.
func buildID(bi *debug.BuildInfo, file string) string {
	if bi == nil {
		return ""
	}
	mod, known := moduleOf(bi)
	if !known {
		mod = moduleFromSource(file)
	}
	if mod == "" {
		return ""
	}
	return mod + " " + bi.GoVersion
}

// moduleOf returns "mod PATH@VERSION" or "vcs REVISION" for fixturegen's
// module as bi records it, and whether bi records it at all; "", true
// means that it does but names no version (a modified checkout, a
// directory replacement).
func moduleOf(bi *debug.BuildInfo) (string, bool) {
	if bi.Main.Path == modulePath {
		if released(bi.Main.Version) {
			return "mod " + modulePath + "@" + bi.Main.Version, true
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
			return "vcs " + rev, true
		}
		return "", true
	}
	for _, m := range bi.Deps {
		if m.Path != modulePath {
			continue
		}
		if m.Replace != nil {
			m = m.Replace
		}
		if !released(m.Version) {
			return "", true
		}
		return "mod " + m.Path + "@" + m.Version, true
	}
	return "", false
}

// released reports whether v names a version whose contents are fixed.
func released(v string) bool {
	return v != "" && v != "(devel)" && !strings.Contains(v, "+dirty")
}

// sourceFile returns the path this file was compiled from, as the
// compiler recorded it: in the module cache (or, with -trimpath, the
// module's path and version) for a dependency.
func sourceFile() string {
	_, file, _, _ := runtime.Caller(0)
	return file
}

// moduleFromSource returns "mod PATH@VERSION" when file lies in
// fixturegen's module at a version, as the module cache and -trimpath
// lay it out (.../github.com/fixturegen/fixturegen@v1.2.3/catalog/identity.go),
// and "" otherwise.
func moduleFromSource(file string) string {
	dir, ok := strings.CutSuffix(strings.ReplaceAll(file, `\`, "/"), "/catalog/identity.go")
	if !ok {
		return ""
	}
	i := strings.LastIndex(dir, modulePath+"@")
	if i < 0 || (i > 0 && dir[i-1] != '/') {
		return ""
	}
	v, ok := unescapeVersion(dir[i+len(modulePath)+1:])
	if !ok || !released(v) {
		return ""
	}
	return "mod " + modulePath + "@" + v
}

// unescapeVersion undoes the module cache's escaping of a version, in
// which "!x" stands for "X"; it reports false for anything that is not an
// escaped version.
func unescapeVersion(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '!' && i+1 < len(s) && 'a' <= s[i+1] && s[i+1] <= 'z':
			b.WriteByte(s[i+1] - 'a' + 'A')
			i++
		case c == '!' || c == '/' || ('A' <= c && c <= 'Z'):
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), s != ""
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
