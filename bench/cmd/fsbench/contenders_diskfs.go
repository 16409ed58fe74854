package main

import (
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	diskfs "github.com/diskfs/go-diskfs"
	"github.com/diskfs/go-diskfs/disk"
	"github.com/diskfs/go-diskfs/filesystem"
)

// go-diskfs writes FAT32 only and chooses its own cluster size; it gets
// the size of fixturegen's smallest image plus an eighth (it runs out of
// clusters at the exact size), and at least the smallest FAT32 volume.
func init() {
	const name = "go-diskfs FAT32 (size +1/8; at least 34 MiB)"
	comparePeer(name, mtoolsName, "mtools")
	register(contender{
		Name: name,
		Run: func(tree, outdir string) error {
			size, err := fatSize(tree)
			if err != nil {
				return err
			}
			size = max(size+size/8, 34<<20)
			d, err := diskfs.Create(filepath.Join(outdir, "fat.img"), size, diskfs.SectorSizeDefault)
			if err != nil {
				return err
			}
			defer d.Close()
			fsys, err := d.CreateFilesystem(disk.FilesystemSpec{Partition: 0, FSType: filesystem.TypeFat32})
			if err != nil {
				return err
			}
			return filepath.WalkDir(tree, func(p string, de fs.DirEntry, err error) error {
				if err != nil || p == tree {
					return err
				}
				rel, err := filepath.Rel(tree, p)
				if err != nil {
					return err
				}
				name := "/" + path.Clean(filepath.ToSlash(rel))
				switch {
				case de.IsDir():
					return fsys.Mkdir(name)
				case de.Type().IsRegular():
					src, err := os.Open(p)
					if err != nil {
						return err
					}
					defer src.Close()
					dst, err := fsys.OpenFile(name, os.O_CREATE|os.O_RDWR)
					if err != nil {
						return err
					}
					if _, err := io.Copy(dst, src); err != nil {
						dst.Close()
						return err
					}
					return dst.Close()
				}
				return nil
			})
		},
	})
}
