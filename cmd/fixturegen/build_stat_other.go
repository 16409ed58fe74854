//go:build !linux

package main

import (
	"io/fs"
	"os"
	"path/filepath"
)

// readDirInfo returns the lstat information of every entry of the
// directory p, sorted by name.
func readDirInfo(p string) ([]fs.FileInfo, error) {
	ents, err := os.ReadDir(p)
	if err != nil {
		return nil, err
	}
	infos := make([]fs.FileInfo, 0, len(ents))
	for _, d := range ents {
		fi, err := os.Lstat(filepath.Join(p, d.Name()))
		if err != nil {
			return nil, err
		}
		infos = append(infos, fi)
	}
	return infos, nil
}
