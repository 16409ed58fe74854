package cd9660

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/makefs/fsopt"
)

// El Torito boot support, as makefs -t cd9660 has it (FreeBSD's
// cd9660_eltorito.c and the boot options of cd9660.c): the bootimage,
// bootimagedir, no-emul-boot, hard-disk-boot, no-boot, boot-load-segment,
// platformid, generic-bootimage and chrp-boot options, kept in a Boot.

// Boot holds the boot options of makefs -t cd9660. With no Images the
// image has no El Torito boot record and no boot catalogue, and, as in
// makefs, CHRPBoot has no effect; GenericImage is written either way.
type Boot struct {
	// Images are the El Torito boot images (bootimage, B), in the order
	// given. The first is the catalogue's Initial/Default Entry; makefs
	// places them on the disc in its own order (see the package
	// documentation).
	Images []BootImage
	// ImageDir is bootimagedir: makefs checks that it is up to 12
	// d-characters and otherwise ignores it (makefs(8): "not
	// implemented"); so does this package.
	ImageDir string
	// GenericImage (generic-bootimage, G) is the host path of a file of
	// up to 32768 bytes written at the start of the System Area, sectors
	// 0 to 15; the boot images' partition tables are written over it.
	GenericImage string
	// CHRPBoot (chrp-boot, C) writes an MBR whose first partition, of type
	// 96h, spans the whole image, for CHRP machines.
	CHRPBoot bool
}

// BootImage is one El Torito boot image and the per-image options that
// followed its bootimage option.
type BootImage struct {
	// System is the platform: "i386" (80x86), "powerpc", "macppc" or
	// "mac68k" (both Mac) or "efi" (EFh). Images of "powerpc" also get a
	// PReP Boot (41h) MBR partition, images of "macppc" and "mac68k" an
	// Apple_Bootstrap partition in an Apple Partition Map.
	System string
	// File is the host path of the image, relative to the working
	// directory, as makefs opens it; the image need not be in the tree.
	File string
	// Media is the emulation: from the size (1.2, 1.44 and 2.88 MB
	// floppies, else no emulation), or as no-emul-boot and hard-disk-boot
	// set it.
	Media BootMedia
	// NoBoot (no-boot) marks the Initial/Default Entry not bootable; as in
	// makefs, Section Entries of the other images are always bootable.
	NoBoot bool
	// LoadSegment (boot-load-segment, hexadecimal) is the real-mode
	// segment to load the image at; 0 means the BIOS default, 7C0h.
	LoadSegment uint16
	// PlatformID (platformid) is the platform of the image's Section
	// Header: "" for its System's, or "efi".
	PlatformID string
}

// BootMedia is the emulation of a boot image.
type BootMedia int

const (
	// MediaFromSize takes the emulation from the image's size, as makefs
	// does: 1228800 bytes is a 1.2 MB floppy, 1474560 a 1.44 MB one,
	// 2949120 a 2.88 MB one, any other size no emulation.
	MediaFromSize BootMedia = iota
	// MediaNoEmulation is no-emul-boot.
	MediaNoEmulation
	// MediaHardDisk is hard-disk-boot: the image is a hard disk whose
	// first sector is its MBR.
	MediaHardDisk
)

// bootSystems maps the system names of bootimage to their El Torito
// Platform IDs (ET_SYS_* of cd9660_eltorito.h).
var bootSystems = map[string]byte{
	"i386":    etPlatformX86,
	"powerpc": etPlatformPPC,
	"macppc":  etPlatformMac,
	"mac68k":  etPlatformMac,
	"efi":     etPlatformEFI,
}

// bootOptions are the boot options of makefs -t cd9660, for the writer's
// -o table; each sets a field of Options.Boot.
var bootOptions = []optionSpec{
	{Option: fsopt.Option{Key: "boot-load-segment", Field: "Boot.Images[].LoadSegment", Default: "0 (the BIOS's 7c0)",
		Usage: "load segment of the last boot image, in hexadecimal"},
		Set: func(o *Options, key, value string) error { return o.Boot.setLoadSegment(value) }},
	{Option: fsopt.Option{Key: "bootimage", Letter: "B", Field: "Boot.Images", Default: "none",
		Usage: "add a boot image, as system;file (system: i386, mac68k, macppc, powerpc or efi)"},
		Set: func(o *Options, key, value string) error { return o.Boot.addImage(value) }},
	{Option: fsopt.Option{Key: "bootimagedir", Field: "Boot.ImageDir", Default: "none",
		Usage: "boot image directory, up to 12 d-characters (unused, as in makefs)"},
		Set: func(o *Options, key, value string) error { return o.Boot.setImageDir(value) }},
	boolOption("chrp-boot", "C", "Boot.CHRPBoot", "write an MBR partition table for older CHRP hardware (with a bootimage)",
		func(o *Options) *bool { return &o.Boot.CHRPBoot }),
	{Option: fsopt.Option{Key: "generic-bootimage", Letter: "G", Field: "Boot.GenericImage", Default: "none",
		Usage: "file of up to 32 KiB written into the system area"},
		Set: func(o *Options, key, value string) error { return o.Boot.setGeneric(value) }},
	{Option: fsopt.Option{Key: "hard-disk-boot", Field: "Boot.Images[].Media", Default: "from the size",
		Usage: "the last boot image is a hard disk image"},
		Set: func(o *Options, key, value string) error {
			return o.Boot.lastImage(key, func(i *BootImage) { i.Media = MediaHardDisk })
		}},
	{Option: fsopt.Option{Key: "no-boot", Field: "Boot.Images[].NoBoot", Default: "off",
		Usage: "the last boot image is not bootable"},
		Set: func(o *Options, key, value string) error {
			return o.Boot.lastImage(key, func(i *BootImage) { i.NoBoot = true })
		}},
	{Option: fsopt.Option{Key: "no-emul-boot", Field: "Boot.Images[].Media", Default: "from the size",
		Usage: "the last boot image is a no-emulation image"},
		Set: func(o *Options, key, value string) error {
			return o.Boot.lastImage(key, func(i *BootImage) { i.Media = MediaNoEmulation })
		}},
	{Option: fsopt.Option{Key: "platformid", Field: "Boot.Images[].PlatformID", Default: "the image's system",
		Usage: "platform of the last boot image's section header: efi"},
		Set: func(o *Options, key, value string) error { return o.Boot.setPlatformID(value) }},
}

// withBootOptions returns the options of table and the boot options,
// sorted bytewise by name as the -o table is.
func withBootOptions(table []optionSpec) fsopt.Table[Options] {
	all := append(slices.Clip(table), bootOptions...)
	slices.SortFunc(all, func(a, b optionSpec) int { return strings.Compare(a.Key, b.Key) })
	return all
}

// addImage adds the image of a bootimage value, "system;file".
func (b *Boot) addImage(value string) error {
	sys, file, ok := strings.Cut(value, ";")
	if !ok {
		return fmt.Errorf("%w: bootimage %q: not in the format system;file", ErrOption, value)
	}
	if _, ok := bootSystems[sys]; !ok {
		return fmt.Errorf("%w: bootimage %q: system %q is not i386, mac68k, macppc, powerpc or efi", ErrOption, value, sys)
	}
	b.Images = append(b.Images, BootImage{System: sys, File: file})
	return nil
}

// lastImage applies set to the last image added, which makefs's per-image
// options, such as key, change.
func (b *Boot) lastImage(key string, set func(*BootImage)) error {
	if len(b.Images) == 0 {
		return fmt.Errorf("%w: %s: no bootimage before it", ErrOption, key)
	}
	set(&b.Images[len(b.Images)-1])
	return nil
}

// setLoadSegment reads a boot-load-segment value: hexadecimal, as makefs
// reads it with strtoul(3) in base 16 (fsopt.ParseNumber reads decimal
// numbers and is not the rule here), with an optional 0x. makefs stores
// any value, and garbage as 0, and writes the low 16 bits; this package
// refuses what is not a number up to ffff.
func (b *Boot) setLoadSegment(value string) error {
	digits := strings.TrimPrefix(strings.TrimPrefix(value, "0x"), "0X")
	v, err := strconv.ParseUint(digits, 16, 16) // no sign, no blanks, no underscores
	if err != nil {
		return fmt.Errorf("%w: boot-load-segment %q: not a hexadecimal number from 0 to ffff", ErrOption, value)
	}
	return b.lastImage("boot-load-segment", func(i *BootImage) { i.LoadSegment = uint16(v) })
}

// setPlatformID reads a platformid value; makefs knows only efi.
func (b *Boot) setPlatformID(value string) error {
	if value != "efi" {
		return fmt.Errorf("%w: platformid %q: the only platform is efi", ErrOption, value)
	}
	return b.lastImage("platformid", func(i *BootImage) { i.PlatformID = value })
}

// setImageDir reads a bootimagedir value.
func (b *Boot) setImageDir(value string) error {
	if err := checkBootImageDir(value); err != nil {
		return fmt.Errorf("%w: bootimagedir %q: %v", ErrOption, value, err)
	}
	b.ImageDir = value
	return nil
}

// setGeneric reads a generic-bootimage value.
func (b *Boot) setGeneric(value string) error {
	if value == "" {
		return fmt.Errorf("%w: generic-bootimage: empty file name", ErrOption)
	}
	b.GenericImage = value
	return nil
}

// checkBootImageDir checks a boot image directory as makefs checks it: up
// to 12 d-characters (A-Z, 0-9, _), lower-case letters allowed.
func checkBootImageDir(dir string) error {
	if dir == "" {
		return errors.New("empty")
	}
	if len(dir) > 12 {
		return errors.New("longer than 12 characters")
	}
	for i := 0; i < len(dir); i++ {
		c := dir[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return fmt.Errorf("%q is not a d-character", c)
		}
	}
	return nil
}

// checkDebian reports the first field of b set to what Debian's makefs
// does not have: the efi system, platformid and chrp-boot.
func (b *Boot) checkDebian() error {
	for i, im := range b.Images {
		if im.System == "efi" {
			return fmt.Errorf("%w: Options.Boot.Images[%d].System %q: not in Debian's makefs (Options.Compat)", ErrParams, i, im.System)
		}
		if im.PlatformID != "" {
			return fmt.Errorf("%w: Options.Boot.Images[%d].PlatformID: not in Debian's makefs (Options.Compat)", ErrParams, i)
		}
	}
	if b.CHRPBoot {
		return fmt.Errorf("%w: Options.Boot.CHRPBoot: not in Debian's makefs (Options.Compat)", ErrParams)
	}
	return nil
}

// check reports the first field of b that makefs would refuse, named as a
// field of Options.
func (b *Boot) check() error {
	if b.ImageDir != "" {
		if err := checkBootImageDir(b.ImageDir); err != nil {
			return fmt.Errorf("%w: Options.Boot.ImageDir %q: %v", ErrParams, b.ImageDir, err)
		}
	}
	for i, im := range b.Images {
		if _, ok := bootSystems[im.System]; !ok {
			return fmt.Errorf("%w: Options.Boot.Images[%d].System %q: not i386, mac68k, macppc, powerpc or efi", ErrParams, i, im.System)
		}
		if im.PlatformID != "" && im.PlatformID != "efi" {
			return fmt.Errorf("%w: Options.Boot.Images[%d].PlatformID %q: the only platform is efi", ErrParams, i, im.PlatformID)
		}
		if im.Media < MediaFromSize || im.Media > MediaHardDisk {
			return fmt.Errorf("%w: Options.Boot.Images[%d].Media %d", ErrParams, i, im.Media)
		}
	}
	return nil
}
