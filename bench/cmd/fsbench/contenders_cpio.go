package main

import (
	"os"
	"os/exec"
	"path/filepath"

	"github.com/fixturegen/fixturegen/imgkit/cpio"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// The cpio rows: GNU cpio's newc archive of the whole tree in bytewise
// order, and fixturegen's of the same bytes (what fixturegen cpio --tree
// TREE --reproducible -H newc -F OUT runs): both take the files' own
// times and owners. GNU's row is a whole pipeline, as a user runs it:
// find, sort and cpio.

const (
	gnuCpioName = "GNU cpio -o -H newc --reproducible (find | sort)"
	cpioFile    = "initramfs.cpio"
)

func init() {
	register(contender{Name: gnuCpioName, Available: have("cpio"), Run: gnuCpio})
	name := "fixturegen cpio --tree -H newc --reproducible"
	comparePeer(name, gnuCpioName, "GNU cpio")
	register(contender{
		Name: name,
		Run: func(tree, outdir string) error {
			o := &cpio.Options{Format: cpio.FormatNewc}
			return cpio.WriteFile(filepath.Join(outdir, cpioFile), fstree.Dir(tree), o)
		},
	})
}

// gnuCpio archives the tree with `cd TREE && find . | LC_ALL=C sort |
// cpio -o -H newc --reproducible`.
func gnuCpio(tree, outdir string) error {
	out, err := os.Create(filepath.Join(outdir, cpioFile))
	if err != nil {
		return err
	}
	defer out.Close()
	cmd := exec.Command("sh", "-c", "find . | LC_ALL=C sort | cpio -o -H newc --reproducible --quiet")
	cmd.Dir, cmd.Stdout = tree, out
	return cmd.Run()
}
