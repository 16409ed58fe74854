package cli

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

func init() {
	register(command{
		Name:    "verify",
		Usage:   "verify [-C dir] [-j N] [-q] [name ...]",
		Summary: "rebuild the fixture catalogue in a temporary directory and check fixtures.sum",
		Help: `verify copies the manifest's folder (its inputs, without the outputs)
into a temporary directory, runs every entry of the manifest there (or only
the named ones) and compares each output with its line in fixtures.sum. It
never writes to the manifest's folder. A mismatch is explained field by
field against the output already in the manifest's folder, when there is
one (see "fixturegen diff"). Inputs must live under the manifest's folder.
The manifest is found as build finds it; -j and -q are as for build.`,
		Run: runVerify,
	})
}

func runVerify(e *env, args []string) error {
	var o buildFlags
	if err := parseBuildFlags(flag.NewFlagSet("verify", flag.ContinueOnError), &o, args); err != nil {
		return err
	}
	o.force = true
	cat, err := loadCatalog(e, "verify", o.dir)
	if err != nil {
		return err
	}
	for _, m := range cat.entries {
		for _, a := range m.Args[1:] {
			if outside(cat.dir, a) {
				if _, err := os.Lstat(filepath.Join(cat.dir, a)); err == nil || filepath.IsAbs(a) {
					return fmt.Errorf("verify: %s:%d: %s: input %s is outside the manifest's folder, which verify copies", manifestName, m.Line, m.Name, a)
				}
			}
		}
	}
	tmp, err := os.MkdirTemp("", "fixturegen-verify-")
	if err != nil {
		return fmt.Errorf("verify: %v", err)
	}
	defer os.RemoveAll(tmp)
	if err := copyInputs(cat, tmp); err != nil {
		return fmt.Errorf("verify: copying the inputs: %v", err)
	}
	b := &builder{
		e: e, cat: cat, flags: o, cmd: "verify",
		dir: tmp, compareDir: cat.dir,
	}
	return b.run()
}

// outside reports whether the argument a, taken relative to dir, names a
// path outside dir.
func outside(dir, a string) bool {
	if filepath.IsAbs(a) {
		rel, err := filepath.Rel(dir, a)
		return err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))
	}
	c := path.Clean(filepath.ToSlash(a))
	return c == ".." || strings.HasPrefix(c, "../")
}

// copyInputs copies the manifest's folder into dst, keeping modes and
// modification times, leaving out the outputs, the sums, the build state
// and temporary files.
func copyInputs(cat *catalog, dst string) error {
	skip := map[string]bool{sumName: true, stateName: true}
	for _, m := range cat.entries {
		skip[m.Name] = true
	}
	type dirInfo struct {
		path string
		fi   fs.FileInfo
	}
	var dirs []dirInfo
	err := filepath.WalkDir(cat.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(cat.dir, p)
		if err != nil {
			return err
		}
		slash := filepath.ToSlash(rel)
		if skip[slash] || strings.HasSuffix(slash, ".tmp") {
			return nil
		}
		target := filepath.Join(dst, rel)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			if rel != "." {
				if err := os.Mkdir(target, 0o755); err != nil {
					return err
				}
			}
			dirs = append(dirs, dirInfo{target, fi})
			return nil // modes and times are set after the walk
		case fi.Mode()&fs.ModeSymlink != 0:
			t, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(t, target)
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if err := os.WriteFile(target, data, fi.Mode().Perm()); err != nil {
				return err
			}
			if err := os.Chmod(target, fi.Mode().Perm()); err != nil {
				return err
			}
			return os.Chtimes(target, fi.ModTime(), fi.ModTime())
		}
		return nil // devices, fifos and sockets are not copied
	})
	if err != nil {
		return err
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		d := dirs[i]
		if err := os.Chmod(d.path, d.fi.Mode().Perm()); err != nil {
			return err
		}
		if err := os.Chtimes(d.path, d.fi.ModTime(), d.fi.ModTime()); err != nil {
			return err
		}
	}
	return nil
}
