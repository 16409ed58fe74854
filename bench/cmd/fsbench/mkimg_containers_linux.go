package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// runMkimgContainers measures only the container formats of issue 22
// (qcow2, vmdk, vmdks, vhd, vhdf, vhdx) on the GPT disk with the 1 GiB
// partition file, each fixturegen row beside freebsd-mkimg's of the same
// format, and, when before names another fixturegen binary, that binary's
// row too, so that a change is measured before and after in one run.
func runMkimgContainers(runs int, dir, before string) error {
	fg, part, err := mkimgSetup(runs, dir)
	if err != nil {
		return err
	}
	outRoot := filepath.Join(dir, "out")
	if err := os.MkdirAll(outRoot, 0o755); err != nil {
		return err
	}
	defer os.RemoveAll(outRoot)
	gpt := mkimgGPT
	rows := []mkimgRow{{name: "floor: read+write copy of the partition file"}}
	for _, f := range []string{"qcow2", "vmdk", "vmdks", "vhd", "vhdf", "vhdx"} {
		peer := "freebsd-mkimg -y -f " + f
		rows = append(rows,
			mkimgRow{name: peer, argv: gpt("freebsd-mkimg", "-y", "-f", f)},
			mkimgRow{name: "fixturegen mkimg -y -f " + f, argv: gpt(fg, "mkimg", "-y", "-f", f), peer: peer})
		if before != "" {
			rows = append(rows, mkimgRow{name: "before: fixturegen mkimg -y -f " + f, argv: gpt(before, "mkimg", "-y", "-f", f), peer: peer})
		}
	}
	fmt.Printf("GPT disk with a 1 GiB partition file in each container format: `-s gpt -P 4096 -p freebsd-ufs:=part.img -f FORMAT -o disk.img`\n\n")
	return mkimgTable(rows, part, outRoot, runs)
}
