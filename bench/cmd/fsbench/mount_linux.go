package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// Magic numbers of statfs(2) (linux/magic.h): f_type is 32 bits wide
// on 32-bit systems, so they are compared as uint32.
const (
	xfsMagic   uint32 = 0x58465342
	btrfsMagic uint32 = 0x9123683e
	ext4Magic  uint32 = 0xef53
	tmpfsMagic uint32 = 0x01021994
)

// loopImageSize is the size of the sparse file -mount makes its file
// system in: room for the three trees (623 MiB), the largest image and a
// copy of the largest tree.
const loopImageSize = 3 << 30

// mkfsCommands are the mkfs commands of the file system types -mount
// takes; the image path is appended. XFS gets shared extents (reflink).
var mkfsCommands = map[string][]string{
	"xfs":   {"mkfs.xfs", "-q", "-f", "-m", "reflink=1"},
	"btrfs": {"mkfs.btrfs", "-q", "-f"},
}

// loopMount makes a file system of type fstype in a sparse file under dir,
// mounts it on a loop device (which needs root) and returns the mount
// point and the function that unmounts it and removes the file.
func loopMount(dir, fstype string) (string, func(), error) {
	mk, ok := mkfsCommands[fstype]
	if !ok {
		return "", nil, fmt.Errorf("-mount %q: want xfs or btrfs", fstype)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	img, mnt := filepath.Join(dir, fstype+".img"), filepath.Join(dir, fstype+".mnt")
	if err := os.MkdirAll(mnt, 0o755); err != nil {
		return "", nil, err
	}
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		return "", nil, err
	}
	if err := os.Truncate(img, loopImageSize); err != nil {
		return "", nil, err
	}
	if out, err := exec.Command(mk[0], append(mk[1:], img)...).CombinedOutput(); err != nil {
		return "", nil, fmt.Errorf("%s: %v: %s", mk[0], err, out)
	}
	if out, err := exec.Command("mount", "-o", "loop", img, mnt).CombinedOutput(); err != nil {
		return "", nil, fmt.Errorf("mount -o loop %s: %v: %s", img, err, out)
	}
	return mnt, func() {
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "fsbench: umount %s: %v: %s\n", mnt, err, out)
			return
		}
		os.Remove(mnt)
		os.Remove(img)
	}, nil
}

// sharesExtents reports whether dir lies on a file system whose files can
// share extents (XFS, btrfs), where cp --reflink=always works.
func sharesExtents(dir string) bool {
	var st syscall.Statfs_t
	if syscall.Statfs(dir, &st) != nil {
		return false
	}
	t := uint32(st.Type)
	return t == xfsMagic || t == btrfsMagic
}

// fsName names the file system dir lies on, for the table's heading.
func fsName(dir string) string {
	var st syscall.Statfs_t
	if syscall.Statfs(dir, &st) != nil {
		return "unknown file system"
	}
	switch uint32(st.Type) {
	case xfsMagic:
		return "XFS"
	case btrfsMagic:
		return "btrfs"
	case ext4Magic:
		return "ext4"
	case tmpfsMagic:
		return "tmpfs"
	}
	return fmt.Sprintf("file system %#x", st.Type)
}
