package cd9660

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// bootSource writes the boot images of the El Torito tests: a 2048-byte
// no-emulation image, a 1.44 MB floppy, a 4 KiB EFI image and a hard disk
// image with one partition of type 83h in its MBR.
func bootSource(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	hd := make([]byte, 512*63*4)
	copy(hd[446:], []byte{0x80, 0, 2, 0, 0x83, 3, 0x3f, 3, 0x3f, 0, 0, 0, 0xc1, 0, 0, 0})
	hd[510], hd[511] = 0x55, 0xaa
	for name, b := range map[string][]byte{
		"boot.img": pattern("boot.img", 2048),
		"fl.img":   make([]byte, 1474560),
		"efi.img":  pattern("efi.img", 4096),
		"hd.img":   hd,
		"a.txt":    []byte("hello\n"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestBootCatalog compares the boot catalogues of xorriso's and both
// makefs's images with what xorriso -report_el_torito plain says of them.
func TestBootCatalog(t *testing.T) {
	t.Parallel()
	src := bootSource(t)
	for _, c := range []struct {
		name string
		tool string
		args []string
	}{
		{"xorriso", "xorriso", []string{"-as", "mkisofs", "-quiet", "-R", "-J",
			"-b", "boot.img", "-no-emul-boot", "-boot-load-size", "4", "-eltorito-alt-boot",
			"-b", "fl.img", "-eltorito-alt-boot", "-e", "efi.img", "-no-emul-boot",
			"-eltorito-alt-boot", "-b", "hd.img", "-hard-disk-boot", "-o"}},
		{"freebsd-makefs", "freebsd-makefs", []string{"-t", "cd9660", "-o", "rockridge",
			"-o", "bootimage=i386;" + filepath.Join(src, "boot.img"), "-o", "no-emul-boot"}},
		{"freebsd-makefs-floppy", "freebsd-makefs", []string{"-t", "cd9660",
			"-o", "bootimage=i386;" + filepath.Join(src, "fl.img")}},
		{"makefs", "makefs", []string{"-t", "cd9660", "-o", "rockridge",
			"-o", "bootimage=i386;" + filepath.Join(src, "boot.img"), "-o", "no-emul-boot"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			xorriso := tooltest.Need(t, "xorriso")
			bin := tooltest.Need(t, c.tool)
			img := filepath.Join(t.TempDir(), "b.iso")
			args := append(append([]string{}, c.args...), img, src)
			if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", c.tool, err, out)
			}
			rc, err := OpenReader(img)
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			cat, err := rc.BootCatalog()
			if err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(xorriso, "-indev", img, "-report_el_torito", "plain").Output()
			if err != nil {
				t.Fatal(err)
			}
			want := reportLines(string(out))
			got := catalogReport(cat)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("boot catalogue:\n%s\nxorriso -report_el_torito plain:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// reportLines returns the catalogue and boot image lines of xorriso's
// -report_el_torito plain, without the label and the spaces that align it.
func reportLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "El Torito catalog", "El Torito boot img":
			lines = append(lines, strings.Join(strings.Fields(v), " "))
		}
	}
	return lines
}

// catalogReport says what reportLines gives, from the catalogue c: its
// sector and the catalogue's size in sectors (1 for up to 64 entries),
// then one line per entry.
func catalogReport(c *BootCatalog) []string {
	lines := []string{fmt.Sprintf("%d 1", c.Sector)}
	n := 1
	add := func(platform uint8, e BootEntry) {
		platforms := map[uint8]string{etPlatformX86: "BIOS", etPlatformPPC: "PPC", etPlatformMac: "Mac", etPlatformEFI: "UEFI"}
		emul := [...]string{"none", "fd1.2", "fd1.4", "fd2.8", "hd"}
		b := "n"
		if e.Bootable() {
			b = "y"
		}
		m := "?"
		if int(e.MediaType&0xf) < len(emul) {
			m = emul[e.MediaType&0xf]
		}
		lines = append(lines, fmt.Sprintf("%d %s %s %s 0x%04x 0x%02x %d %d", n, platforms[platform], b, m, e.LoadSegment, e.SystemType, e.SectorCount, e.LoadRBA))
		n++
	}
	add(c.PlatformID, c.Default)
	for _, s := range c.Sections {
		for _, e := range s.Entries {
			add(s.PlatformID, e)
		}
	}
	return lines
}

// TestNoBootCatalog checks the error of an image without a boot record.
func TestNoBootCatalog(t *testing.T) {
	t.Parallel()
	src := makeSource(t, []srcFile{{name: "a", size: 1, mode: 0o644}})
	rc, err := OpenReader(makeImage(t, isoTools[0], src))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if _, err := rc.BootCatalog(); !errors.Is(err, ErrNoBootRecord) {
		t.Errorf("BootCatalog: %v, want ErrNoBootRecord", err)
	}
}
