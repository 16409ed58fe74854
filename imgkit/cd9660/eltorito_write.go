package cd9660

import (
	"fmt"
	"io"
	"os"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
)

// imageSizes returns the sizes of the files of b's boot images, which
// planBoot places. makefs takes them from lstat(2), so that a symbolic
// link would be placed with the size of its target's name; this package
// follows links and takes the size of the file they name.
func (b *Boot) imageSizes() ([]int64, error) {
	sizes := make([]int64, len(b.Images))
	for i, im := range b.Images {
		st, err := os.Stat(im.File)
		if err != nil {
			return nil, fmt.Errorf("cd9660: Options.Boot.Images[%d].File: %w", i, err)
		}
		if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%w: Options.Boot.Images[%d].File %s: not a regular file", ErrParams, i, im.File)
		}
		sizes[i] = st.Size()
	}
	return sizes, nil
}

// genericImage reads b's generic boot image, or returns nil when there is
// none.
func (b *Boot) genericImage() ([]byte, error) {
	if b.GenericImage == "" {
		return nil, nil
	}
	f, err := os.Open(b.GenericImage)
	if err != nil {
		return nil, fmt.Errorf("cd9660: Options.Boot.GenericImage: %w", err)
	}
	defer f.Close()
	// Read one byte more than fits, to tell a file that is too large.
	data, err := io.ReadAll(io.LimitReader(f, systemAreaSectors*SectorSize+1))
	if err != nil {
		return nil, fmt.Errorf("cd9660: Options.Boot.GenericImage: %w", err)
	}
	if len(data) > systemAreaSectors*SectorSize {
		return nil, fmt.Errorf("%w: Options.Boot.GenericImage %s: more than %d bytes", ErrParams, b.GenericImage, systemAreaSectors*SectorSize)
	}
	return data, nil
}

// copyImages copies the boot images' files to their sectors in w, after
// the catalogue, as makefs does; each must still be as long as planBoot
// was told.
func (p *bootPlan) copyImages(w io.WriterAt, b *Boot) error {
	for _, e := range p.entries {
		if err := copyBootImage(w, int64(e.rba)*int64(p.sectorSize), b.Images[e.index].File, e.size); err != nil {
			return fmt.Errorf("cd9660: Options.Boot.Images[%d].File: %w", e.index, err)
		}
	}
	return nil
}

// copyBootImage copies size bytes of the file name to offset off of w.
func copyBootImage(w io.WriterAt, off int64, name string, size int64) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	n, err := io.Copy(io.NewOffsetWriter(w, off), io.LimitReader(f, size))
	if err == nil && n != size {
		err = fmt.Errorf("%s: %d bytes, %d when the image was laid out", name, n, size)
	}
	return err
}

// bootArea is the writer's boot step: what it read of the boot options'
// files before the layout, and the plan the layout made.
type bootArea struct {
	boot    *Boot
	sizes   []int64 // of the boot images' files
	generic []byte  // the generic boot image, or nil
	plan    *bootPlan
	debian  bool // Debian's makefs's layout (compat=debian)
}

// prepareBoot checks b and reads what the layout needs of its files: the
// boot images' sizes and the generic boot image. With debian the layout
// is Debian's makefs's, which has fewer options.
func prepareBoot(b *Boot, debian bool) (*bootArea, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	if debian {
		if err := b.checkDebian(); err != nil {
			return nil, err
		}
	}
	sizes, err := b.imageSizes()
	if err != nil {
		return nil, err
	}
	generic, err := b.genericImage()
	if err != nil {
		return nil, err
	}
	return &bootArea{boot: b, sizes: sizes, generic: generic, debian: debian}, nil
}

// layout places the catalogue and the boot images from logical sector
// first, the first after the volume descriptor set, and returns the first
// sector after them, where the path tables go.
func (a *bootArea) layout(first uint32) (uint32, error) {
	p, err := planBoot(a.boot, a.sizes, first, SectorSize, a.debian)
	if err != nil || p == nil {
		return first, err
	}
	a.plan = p
	return p.end, nil
}

// write writes the boot parts of an image of totalSectors logical
// sectors (trailing padding included) to w: the System Area (the generic
// image and the partition tables), and with boot images the catalogue and
// the images.
func (a *bootArea) write(w io.WriterAt, totalSectors uint32) error {
	sa := make([]byte, systemAreaSectors*SectorSize)
	copy(sa, a.generic)
	if a.plan != nil {
		a.plan.putSystemArea(sa, a.boot.CHRPBoot, totalSectors)
	}
	if a.generic != nil || a.plan != nil {
		if _, err := w.WriteAt(sa, 0); err != nil {
			return err
		}
	}
	if a.plan == nil {
		return nil
	}
	if _, err := w.WriteAt(a.plan.catalog(), int64(a.plan.catalogSector)*SectorSize); err != nil {
		return err
	}
	return a.plan.copyImages(w, a.boot)
}

// placeBoot is the layout step of El Torito: it reads what it needs of
// the boot options' files and places the catalogue and the boot images
// after the volume descriptor set, before the path tables, as
// cd9660_makefs calls cd9660_setup_boot.
func (v *volume) placeBoot() error {
	a, err := prepareBoot(&v.o.Boot, v.o.debian())
	if err != nil {
		return err
	}
	end, err := a.layout(uint32(v.next))
	if err != nil {
		return err
	}
	v.boot, v.next = a, int64(end)
	return nil
}

// writeBoot is the write step of El Torito: the System Area, the
// catalogue and the boot images, with the image's size, padding
// included, for the partition tables.
func (v *volume) writeBoot(im *bcache.Image) error {
	return v.boot.write(im, uint32(v.next))
}

// bootRecord builds the El Torito Boot Record, the volume descriptor
// after the primary one when there are boot images.
func (v *volume) bootRecord() *volumeDescriptor {
	d := new(volumeDescriptor)
	putBootRecord(d, v.boot.plan.catalogSector)
	return d
}
