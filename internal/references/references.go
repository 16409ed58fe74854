// Package references finds and builds the reference tools that fixturegen's
// byte-identity tests compare with: the Linux ports of FreeBSD's makefs and
// mkimg, and e2fsprogs 1.47.4. Their sources live in the repository's
// references folder (a module of its own, so that no module zip of
// fixturegen carries them); `go tool mage references` builds each into a
// folder of the user's cache named by a hash of its sources, where the
// tests find it by themselves (internal/tooltest puts it on their PATH).
package references

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Tool is one reference: the folder of references holding its build.sh
// and sources, and the files its build.sh installs.
type Tool struct {
	Dir      string   // the folder under references, and the tool's name
	Commands []string // what build.sh DEST installs in DEST
	Needs    string   // what building it needs, for messages
}

// Tools lists the references in the order `go tool mage references`
// builds them.
var Tools = []Tool{
	{Dir: "freebsd-makefs", Commands: []string{"freebsd-makefs"}, Needs: "gcc make"},
	{Dir: "freebsd-mkimg", Commands: []string{"freebsd-mkimg"}, Needs: "gcc make pkg-config libbsd-dev zlib1g-dev"},
	{Dir: "e2fsprogs", Commands: []string{"mke2fs-1.47.4", "e2fsck-1.47.4", "debugfs-1.47.4", "dumpe2fs-1.47.4", "mke2fs-1.47.4.conf"}, Needs: "gcc make"},
}

// CacheEnv names the folder the references are built into, overriding
// the default, fixturegen/references in the user's cache folder.
const CacheEnv = "FIXTUREGEN_REFERENCES"

// Command is the command that builds the references, for messages.
const Command = "go tool mage references"

// ErrNoSources is returned by Find when no folder above the start holds
// the references' sources.
var ErrNoSources = errors.New("references: no references folder above")

// ToolOf returns the reference that installs the command name.
func ToolOf(name string) (Tool, bool) {
	for _, t := range Tools {
		for _, c := range t.Commands {
			if c == name {
				return t, true
			}
		}
	}
	return Tool{}, false
}

// Find returns the references folder of the repository holding start: the
// nearest folder named references, in start or above it, that holds
// every tool's build.sh.
func Find(start string) (string, error) {
	dir, err := filepath.Abs(start)
	if err != nil {
		return "", err
	}
	for {
		if d := filepath.Join(dir, "references"); holdsSources(d) {
			return d, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("%w %s", ErrNoSources, start)
		}
		dir = parent
	}
}

func holdsSources(dir string) bool {
	for _, t := range Tools {
		if fi, err := os.Stat(filepath.Join(dir, t.Dir, "build.sh")); err != nil || !fi.Mode().IsRegular() {
			return false
		}
	}
	return true
}

// CacheDir returns the folder the references are built into: $FIXTUREGEN_REFERENCES,
// or fixturegen/references in the user's cache folder.
func CacheDir() (string, error) {
	if d := os.Getenv(CacheEnv); d != "" {
		return filepath.Abs(d)
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("references: no cache folder (set %s): %v", CacheEnv, err)
	}
	return filepath.Join(d, "fixturegen", "references"), nil
}

// Key returns the hash that names a build of t: the SHA-256 of the paths
// and contents of every file in its folder under refs, so that a change
// to its sources or build.sh builds it anew. 16 hex digits are kept.
func Key(refs string, t Tool) (string, error) {
	root := filepath.Join(refs, t.Dir)
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	h := sha256.New()
	for _, p := range files {
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(h, "%s\x00", filepath.ToSlash(rel))
		f, err := os.Open(p)
		if err != nil {
			return "", err
		}
		n, err := io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "\x00%d\x00", n)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// BinDir returns the folder a build of t from the sources in refs goes
// to: DIR-KEY in CacheDir.
func BinDir(refs string, t Tool) (string, error) {
	cache, err := CacheDir()
	if err != nil {
		return "", err
	}
	key, err := Key(refs, t)
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, t.Dir+"-"+key), nil
}

// Built returns BinDir(refs, t) and whether it holds every command of t,
// that is whether t was built from the sources as they are now.
func Built(refs string, t Tool) (string, bool) {
	dir, err := BinDir(refs, t)
	if err != nil {
		return "", false
	}
	for _, c := range t.Commands {
		if fi, err := os.Stat(filepath.Join(dir, c)); err != nil || !fi.Mode().IsRegular() {
			return dir, false
		}
	}
	return dir, true
}

// Build builds t from the sources in refs into BinDir, unless it is
// built already, and returns that folder and whether it built it. build.sh
// writes into a new folder beside BinDir, which is renamed into place only
// when every command is there; earlier builds of t (other keys) are
// removed. The build's output goes to log.
func Build(refs string, t Tool, log io.Writer) (dir string, built bool, err error) {
	dir, ok := Built(refs, t)
	if ok {
		return dir, false, nil
	}
	if dir == "" {
		if dir, err = BinDir(refs, t); err != nil {
			return "", false, err
		}
	}
	cache := filepath.Dir(dir)
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", false, fmt.Errorf("references: %v", err)
	}
	tmp, err := os.MkdirTemp(cache, ".build-"+t.Dir+"-")
	if err != nil {
		return "", false, fmt.Errorf("references: %v", err)
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command("sh", filepath.Join(refs, t.Dir, "build.sh"), tmp)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return "", false, fmt.Errorf("references: building %s (needs %s): %v", t.Dir, t.Needs, err)
	}
	for _, c := range t.Commands {
		if _, err := os.Stat(filepath.Join(tmp, c)); err != nil {
			return "", false, fmt.Errorf("references: %s/build.sh did not install %s", t.Dir, c)
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", false, fmt.Errorf("references: %v", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", false, fmt.Errorf("references: %v", err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return "", false, fmt.Errorf("references: %v", err)
	}
	removeOld(cache, t, filepath.Base(dir))
	return dir, true, nil
}

// staleBuild is how old a temporary build folder must be for removeOld
// to take it for one a killed build left, not one a build beside it is
// still writing.
const staleBuild = time.Hour

// removeOld removes the builds of t in cache other than keep, and the
// temporary folders of builds of t that were killed (older than
// staleBuild).
func removeOld(cache string, t Tool, keep string) {
	ents, _ := os.ReadDir(cache)
	for _, e := range ents {
		n := e.Name()
		if !e.IsDir() || n == keep {
			continue
		}
		old := strings.HasPrefix(n, t.Dir+"-") && len(n) == len(t.Dir)+17
		if strings.HasPrefix(n, ".build-"+t.Dir+"-") {
			fi, err := e.Info()
			old = err == nil && time.Since(fi.ModTime()) > staleBuild
		}
		if old {
			os.RemoveAll(filepath.Join(cache, n))
		}
	}
}
