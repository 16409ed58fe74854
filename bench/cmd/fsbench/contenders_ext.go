package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/ext"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/internal/benchtree"
	"github.com/fixturegen/fixturegen/internal/references"
)

// The ext rows: the reference mke2fs 1.47.4 -d of e2fsprogs (the one the
// ext tests compare with, `go tool mage references` builds it) with its
// own mke2fs.conf, and fixturegen's writer of the same bytes (what
// `fixturegen mke2fs -t ext2|ext3 -U UUID -E hash_seed=UUID -d TREE IMG
// SIZE` runs, with SOURCE_DATE_EPOCH), for ext2, ext3 and ext4. Both get the
// same UUID, hash seed, SOURCE_DATE_EPOCH and size, so the images are the
// same bytes: each fixturegen row checks that, untimed, after its first
// run (contender.Check), against the reference's image of the tree. The
// "(whole process)" rows run the fixturegen command with the reference's
// command line, as the mke2fs rows run mke2fs: the process's start and
// the page faults of a fresh heap included, which the in-process rows
// (the library, called again and again in one process) do not pay.
//
// The size is the tree's bytes and a half plus 8 KiB a file, rounded up
// to a MiB, at least 16 MiB: 16 MiB (1 KiB blocks) for the small tree,
// 352 MiB (1 KiB blocks) for midsize, 600 MiB (4 KiB blocks) for big.

const (
	extUUID     = "6b33f6a2-4bd5-4fb1-9ba5-2c4f3a0d1e77"
	extHashSeed = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"
	extEpoch    = 1700000000
	extFile     = "ext.img"
	refMke2fs   = "mke2fs-1.47.4"
)

func init() {
	for _, typ := range []string{"ext2", "ext3", "ext4"} {
		refName := fmt.Sprintf("mke2fs 1.47.4 -t %s -d", typ)
		register(contender{
			Name:      refName,
			Available: func() bool { _, err := refMke2fsPath(); return err == nil },
			Run: func(tree, outdir string) error {
				return runRefMke2fs(typ, tree, filepath.Join(outdir, extFile))
			},
		})
		proc := fmt.Sprintf("fixturegen mke2fs -t %s -d (whole process)", typ)
		comparePeer(proc, refName, "mke2fs -t "+typ)
		register(contender{
			Name: proc,
			Run: func(tree, outdir string) error {
				return runFixturegenMke2fs(typ, tree, filepath.Join(outdir, extFile))
			},
			Check: func(tree, outdir string) error { return checkExt(proc, typ, tree, outdir) },
		})
		name := fmt.Sprintf("fixturegen mke2fs -t %s -d", typ)
		comparePeer(name, refName, "mke2fs -t "+typ)
		register(contender{
			Name: name,
			Run: func(tree, outdir string) error {
				size, err := extSize(tree)
				if err != nil {
					return err
				}
				o := &ext.Options{Type: typ, Size: size, UUID: mustUUID(extUUID), HashSeed: mustUUID(extHashSeed),
					Timestamp: time.Unix(extEpoch, 0), ClampTimes: true}
				return ext.WriteFile(filepath.Join(outdir, extFile), fstree.Dir(tree), o)
			},
			Check: func(tree, outdir string) error { return checkExt(name, typ, tree, outdir) },
		})
	}
}

// checkExt compares the image row made in outdir with the reference's
// image of tree, when the reference is here.
func checkExt(row, typ, tree, outdir string) error {
	if _, err := refMke2fsPath(); err != nil {
		fmt.Fprintf(os.Stderr, "fsbench: %s: %v; bytes not compared\n", row, err)
		return nil
	}
	ref := filepath.Join(outdir, "ref.img")
	if err := runRefMke2fs(typ, tree, ref); err != nil {
		return err
	}
	return sameFile(filepath.Join(outdir, extFile), ref)
}

// runFixturegenMke2fs makes img of tree with the fixturegen command, the
// reference's command line: SOURCE_DATE_EPOCH=extEpoch fixturegen mke2fs
// -q -F -t typ -U extUUID -E hash_seed=extHashSeed,root_owner=0:0 -d tree
// img size.
func runFixturegenMke2fs(typ, tree, img string) error {
	bin, err := fixturegenBinary(filepath.Dir(tree))
	if err != nil {
		return err
	}
	size, err := extSize(tree)
	if err != nil {
		return err
	}
	cmd := exec.Command(bin, "mke2fs", "-q", "-F", "-t", typ, "-U", extUUID, "-E", "hash_seed="+extHashSeed+",root_owner=0:0",
		"-d", tree, img, strconv.FormatInt(size/1024, 10)+"k")
	cmd.Env = append(os.Environ(), fmt.Sprintf("SOURCE_DATE_EPOCH=%d", extEpoch))
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v: %s", bin, err, out)
	}
	return nil
}

// refMke2fsPath finds the reference mke2fs: on PATH, else built by `go
// tool mage references` from the repository's sources as they are now.
func refMke2fsPath() (string, error) {
	if p, err := exec.LookPath(refMke2fs); err == nil {
		return p, nil
	}
	refs, err := references.Find(".")
	if err != nil {
		return "", err
	}
	t, _ := references.ToolOf(refMke2fs)
	dir, ok := references.Built(refs, t)
	if !ok {
		return "", fmt.Errorf("%s is not built (%s)", refMke2fs, references.Command)
	}
	return filepath.Join(dir, refMke2fs), nil
}

// runRefMke2fs makes img of tree with the reference mke2fs:
// MKE2FS_CONFIG=its conf SOURCE_DATE_EPOCH=extEpoch mke2fs -q -F -t typ
// -U extUUID -E hash_seed=extHashSeed,root_owner=0:0 -d tree img size.
func runRefMke2fs(typ, tree, img string) error {
	bin, err := refMke2fsPath()
	if err != nil {
		return err
	}
	size, err := extSize(tree)
	if err != nil {
		return err
	}
	cmd := exec.Command(bin, "-q", "-F", "-t", typ, "-U", extUUID, "-E", "hash_seed="+extHashSeed+",root_owner=0:0",
		"-d", tree, img, strconv.FormatInt(size/1024, 10)+"k")
	cmd.Env = append(os.Environ(), "MKE2FS_CONFIG="+filepath.Join(filepath.Dir(bin), "mke2fs-1.47.4.conf"),
		fmt.Sprintf("SOURCE_DATE_EPOCH=%d", extEpoch), "E2FSPROGS_FAKE_TIME=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v: %s", bin, err, out)
	}
	return nil
}

// extSizes caches extSize by tree.
var extSizes sync.Map

// extSize is the image size for the benchmark tree at tree (whose base
// name is its kind): its bytes and a half plus 8 KiB a file, rounded up
// to a MiB, at least 16 MiB.
func extSize(tree string) (int64, error) {
	if v, ok := extSizes.Load(tree); ok {
		return v.(int64), nil
	}
	p, err := benchtree.PlanFor(filepath.Base(tree))
	if err != nil {
		return 0, err
	}
	const miB = 1 << 20
	n := max(16*miB, (p.Size()*3/2+int64(len(p.Files))*8192+miB-1)/miB*miB)
	extSizes.Store(tree, n)
	return n, nil
}

// mustUUID parses the RFC 4122 text s.
func mustUUID(s string) [16]byte {
	var u [16]byte
	h := bytes.ReplaceAll([]byte(s), []byte("-"), nil)
	for i := range u {
		b, err := strconv.ParseUint(string(h[2*i:2*i+2]), 16, 8)
		if err != nil {
			panic(err)
		}
		u[i] = byte(b)
	}
	return u
}

// sameFile returns nil when the files a and b hold the same bytes, else
// an error giving the first offset where they differ.
func sameFile(a, b string) error {
	fa, err := os.Open(a)
	if err != nil {
		return err
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return err
	}
	defer fb.Close()
	ba, bb := make([]byte, 1<<20), make([]byte, 1<<20)
	for off := int64(0); ; {
		na, ea := io.ReadFull(fa, ba)
		nb, eb := io.ReadFull(fb, bb)
		if !bytes.Equal(ba[:na], bb[:nb]) {
			i := 0
			for i < min(na, nb) && ba[i] == bb[i] {
				i++
			}
			return fmt.Errorf("%s differs from the reference's %s at byte %d", filepath.Base(a), filepath.Base(b), off+int64(i))
		}
		if ea != nil || eb != nil {
			return nil
		}
		off += int64(na)
	}
}
