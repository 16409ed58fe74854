package main

import "fmt"

// mkimgVMDKTable measures the VMDK formats (issue 22 item 5) on the GPT
// disk with the 1 GiB partition file part, each fixturegen row beside
// freebsd-mkimg's of the same format. vmdk copies the partition's grains;
// vmdks compresses them (random data, so each grain is stored).
func mkimgVMDKTable(fg, part, outRoot string, runs int) error {
	gpt := func(tool string, extra ...string) func(part, out string) []string {
		return func(part, out string) []string {
			return append(append([]string{tool}, extra...), "-s", "gpt", "-P", "4096", "-p", "freebsd-ufs:="+part, "-o", out)
		}
	}
	rows := []mkimgRow{{name: "floor: read+write copy of the partition file"}}
	for _, f := range []string{"vmdk", "vmdks"} {
		peer := "freebsd-mkimg -y -f " + f
		rows = append(rows,
			mkimgRow{name: peer, argv: gpt("freebsd-mkimg", "-y", "-f", f)},
			mkimgRow{name: "fixturegen mkimg -y -f " + f, argv: gpt(fg, "mkimg", "-y", "-f", f), peer: peer},
			mkimgRow{name: "fixturegen mkimg -f " + f + " (derived CID: hashes the partition)", argv: gpt(fg, "mkimg", "-f", f), peer: peer})
	}
	fmt.Printf("\nThe same GPT disk as a VMDK: `-s gpt -P 4096 -p freebsd-ufs:=part.img -f vmdk|vmdks -o disk.img`\n\n")
	return mkimgTable(rows, part, outRoot, runs)
}
