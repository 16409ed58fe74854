package cd9660

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// These tests read fixturegen's boot images with readers that share no
// code with it: isoinfo -d (genisoimage) for the Boot Record and the
// Initial/Default Entry, xorriso -report_el_torito (libisofs) for every
// catalogue entry, and for a hard disk image the size its MBR gives, and
// xorriso -report_system_area for the MBR and APM partitions, 7z
// (p7zip) for the boot images' contents, with and
// without Rock Ridge and Joliet (the Boot Record stays in sector 17, the
// Joliet descriptor follows it). Cases with
// more than 32 images are left out: libisofs reads at most 32. With
// FIXTUREGEN_LONG=1 each case is read plain, with Rock Ridge and with
// Rock Ridge and Joliet; by default one of the three, in turn.

func TestBootReaders(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "isoinfo")
	tooltest.Need(t, "xorriso")
	n := 0 // the cases run so far, which take the variants in turn (tooltest.Pick)
	for k, c := range bootCases {
		if !tooltest.ShortSample(k, 3) {
			continue // -short (CI's race run): every third case; the run without -short, all
		}
		if strings.Count(c.opts, "bootimage=") > 32 {
			continue
		}
		extras := tooltest.Pick(n, [][]string{nil, {"rockridge"}, {"rockridge", "joliet"}})
		n++
		for _, extra := range extras {
			t.Run(c.name+"/"+strings.Join(extra, ","), func(t *testing.T) {
				t.Parallel()
				files := makeBootDir(t, c.files)
				items := append(absBootOptions(files, c.opts), extra...)
				got, v := ourImage(t, makeTree(t, "basic"), items)
				path := writeTemp(t, got)
				checkIsoinfoBoot(t, path, v.boot.plan, v.joliet != nil)
				if v.boot.plan == nil {
					return
				}
				checkXorrisoBoot(t, path, v.boot.plan)
				checkXorrisoSystemArea(t, path, v.boot.plan, v.o.Boot.CHRPBoot, uint32(len(got)/SectorSize))
				check7zBoot(t, path, v.boot.plan, &v.o.Boot, c.files)
			})
		}
	}
}

// writeTemp writes img to a file in a temporary directory.
func writeTemp(t *testing.T, img []byte) string {
	t.Helper()
	path := t.TempDir() + "/boot.iso"
	must(t, os.WriteFile(path, img, 0o644))
	return path
}

// runTool runs a reader and returns what it printed.
func runTool(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(tooltest.Need(t, name), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// checkIsoinfoBoot checks what isoinfo -d says of the Boot Record and the
// Initial/Default Entry, and that it finds the Joliet volume when there
// is one; with no plan, that there is no Boot Record.
func checkIsoinfoBoot(t *testing.T, path string, p *bootPlan, joliet bool) {
	t.Helper()
	out := runTool(t, "isoinfo", "-d", "-i", path)
	if joliet != !strings.Contains(out, "NO Joliet present") {
		t.Errorf("isoinfo -d: Joliet %v, want %v:\n%s", !joliet, joliet, out)
	}
	if p == nil {
		if strings.Contains(out, "El Torito") {
			t.Errorf("isoinfo finds El Torito in an image without boot images:\n%s", out)
		}
		return
	}
	e := p.entries[p.initial]
	bootid := "Bootid 88 (bootable)"
	if !e.bootable {
		bootid = "Bootid 0 (not bootable)"
	}
	for _, want := range []string{
		fmt.Sprintf("El Torito VD version 1 found, boot catalog is in sector %d", p.catalogSector),
		fmt.Sprintf("Arch %d ", e.system), bootid,
		fmt.Sprintf("Boot media %d ", e.media), fmt.Sprintf("Load segment %X\n", e.segment),
		fmt.Sprintf("Sys type %X\n", e.system), fmt.Sprintf("Nsect %X\n", uint16(e.count)),
		fmt.Sprintf("Bootoff %X %d\n", e.rba, e.rba),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("isoinfo -d does not say %q:\n%s", want, out)
		}
	}
}

// xorrisoPlatforms and xorrisoMedia are xorriso's names of Platform IDs
// and Boot Media Types.
var (
	xorrisoPlatforms = map[byte]string{etPlatformX86: "BIOS", etPlatformPPC: "PPC", etPlatformMac: "Mac", etPlatformEFI: "UEFI"}
	xorrisoMedia     = map[byte]string{etMediaNoEmulation: "none", etMediaFloppy12: "fd1.2", etMediaFloppy144: "fd1.4",
		etMediaFloppy288: "fd2.8", etMediaHardDisk: "hd"}
)

// checkXorrisoBoot checks xorriso's list of the catalogue's entries (in
// catalogue order: the initial entry, then each section's) against the
// plan, and for hard disk images (the cases' are bootFileData's, whose
// one partition ends at the image's end) the size their MBR gives.
func checkXorrisoBoot(t *testing.T, path string, p *bootPlan) {
	t.Helper()
	out := runTool(t, "xorriso", "-indev", path, "-report_el_torito", "plain")
	order := []int{p.initial}
	for _, g := range p.sections() {
		order = append(order, g.entries...)
	}
	want := []string{fmt.Sprintf("El Torito catalog : %d %d", p.catalogSector, p.catalogSectors)}
	for n, k := range order {
		e := p.entries[k]
		platform, boot, sysType := e.platform, "y", byte(0)
		if k == p.initial {
			platform, sysType = e.system, e.system
			if !e.bootable {
				boot = "n"
			}
		}
		want = append(want, fmt.Sprintf("El Torito boot img : %d %s %s %s 0x%04x 0x%02x %d %d",
			n+1, xorrisoPlatforms[platform], boot, xorrisoMedia[e.media], e.segment, sysType, uint16(e.count), e.rba))
		if e.media == etMediaHardDisk {
			want = append(want, fmt.Sprintf("El Torito hdsiz/512: %d %d", n+1, e.size/512))
		}
	}
	checkLines(t, "xorriso -report_el_torito", out, "El Torito ", want)
}

// checkXorrisoSystemArea checks the MBR and APM partitions xorriso reads
// from the System Area against those the plan writes.
func checkXorrisoSystemArea(t *testing.T, path string, p *bootPlan, chrp bool, totalSectors uint32) {
	t.Helper()
	out := runTool(t, "xorriso", "-indev", path, "-report_system_area", "plain")
	var mbr, apm []string
	if chrp {
		mbr = append(mbr, fmt.Sprintf("MBR partition : 1 0x80 0x96 0 %d", totalSectors*4))
	}
	for _, e := range p.entries {
		switch e.system {
		case etPlatformPPC:
			mbr = append(mbr, fmt.Sprintf("MBR partition : %d 0x80 0x41 %d %d", len(mbr)+1, e.rba*4, e.count*4))
		case etPlatformMac:
			m := len(apm)/3 + 1
			apm = append(apm, fmt.Sprintf("APM partition name : %d CD Boot", m),
				fmt.Sprintf("APM partition type : %d Apple_Bootstrap", m),
				fmt.Sprintf("APM start and size : %d %d %d", m, e.rba*4, e.count*4))
		}
	}
	want := append(mbr, apm...)
	checkLines(t, "xorriso -report_system_area", out, "", want)
	for _, prefix := range []string{"MBR partition ", "APM partition "} {
		if !slices.ContainsFunc(want, func(w string) bool { return strings.HasPrefix(w, prefix) }) &&
			strings.Contains(out, prefix) {
			t.Errorf("xorriso finds an %s that fixturegen does not write:\n%s", prefix, out)
		}
	}
}

// checkLines checks that the lines of out starting with prefix and with
// the fields of a line of want, compared with their blanks squeezed,
// include every line of want, in order.
func checkLines(t *testing.T, what, out, prefix string, want []string) {
	t.Helper()
	var got []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			got = append(got, strings.Join(strings.Fields(l), " "))
		}
	}
	i := 0
	for _, l := range got {
		if i < len(want) && l == want[i] {
			i++
		}
	}
	if i < len(want) {
		t.Errorf("%s: missing %q in:\n%s", what, want[i], strings.Join(got, "\n"))
	}
}

// z7Media are 7z's names of Boot Media Types in the names of the
// [BOOT] files it shows.
var z7Media = map[byte]string{etMediaNoEmulation: "NoEmul", etMediaFloppy12: "1.2M", etMediaFloppy144: "1.44M",
	etMediaFloppy288: "2.88M", etMediaHardDisk: "HardDisk"}

// check7zBoot extracts the image with 7z, which shows each catalogue
// entry as a file [BOOT]/N-Boot-Media.img (no N- with one entry) of its
// Sector Count's 512-byte sectors, and checks each against its image
// file: the file's bytes, then zeros.
func check7zBoot(t *testing.T, path string, p *bootPlan, b *Boot, files map[string]bootFile) {
	t.Helper()
	out := t.TempDir()
	runTool(t, "7z", "x", "-o"+out, path)
	order := []int{p.initial}
	for _, g := range p.sections() {
		order = append(order, g.entries...)
	}
	for n, k := range order {
		e := p.entries[k]
		name := "Boot-" + z7Media[e.media] + ".img"
		if k == p.initial && !e.bootable {
			name = "Not" + name
		}
		if len(order) > 1 {
			name = fmt.Sprintf("%d-%s", n+1, name)
		}
		got, err := os.ReadFile(filepath.Join(out, "[BOOT]", name))
		if err != nil {
			t.Errorf("7z: %v", err)
			continue
		}
		if e.count == 0 {
			continue // an empty image: 7z shows the rest of the disc from its Load RBA
		}
		base := filepath.Base(b.Images[e.index].File)
		want := make([]byte, int(e.count)*partitionSectorSize)
		copy(want, bootFileData(base, files[base]))
		if !bytes.Equal(got, want) {
			t.Errorf("7z: [BOOT]/%s (%s): %d bytes, not the image file's %d and zeros to %d", name, base, len(got), e.size, len(want))
		}
	}
}
