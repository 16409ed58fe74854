package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
)

// A contender is one way of building an image (or, for the sanity rows,
// copying a tree) from a source tree.
type contender struct {
	Name string
	// Run builds from the tree rooted at tree, writing its outputs into
	// outdir, a fresh empty directory that is removed after the run.
	Run func(tree, outdir string) error
	// Available reports whether the contender can run here (a tool is
	// installed, the platform supports it); nil means always.
	Available func() bool
	// Check, when not nil, checks the outputs of Run's first run on a
	// tree (the ext rows: the same bytes as the reference's image),
	// before outdir is removed; it is not timed.
	Check func(tree, outdir string) error
}

// contenders lists the contenders in the order of the table's rows; each
// file of this package adds its own in init with register.
var contenders []contender

func register(c contender) { contenders = append(contenders, c) }

func init() {
	register(contender{Name: "sanity: copy of the tree (Go, read+write)", Run: copyTree})
	register(contender{
		Name:      "sanity: cp -r",
		Available: func() bool { _, err := exec.LookPath("cp"); return err == nil },
		Run: func(tree, outdir string) error {
			return exec.Command("cp", "-r", tree, filepath.Join(outdir, "copy")).Run()
		},
	})
}

// copyTree copies the tree's directories and regular files into outdir/copy.
func copyTree(tree, outdir string) error {
	dst := filepath.Join(outdir, "copy")
	buf := make([]byte, 1<<20)
	return filepath.WalkDir(tree, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(tree, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.Mkdir(target, 0o755)
		case d.Type().IsRegular():
			out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if err != nil {
				return err
			}
			err = copyFile(out, p, buf)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
			return err
		}
		return nil
	})
}
