//go:build linux

package ffs_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/ffs"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/inspect"
	"github.com/fixturegen/fixturegen/imgkit/makefs/fsopt"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// These tests compare the writer, in its default CompatFreeBSD mode, with
// FreeBSD's own makefs (the Linux port freebsd-makefs) byte for byte, over
// a matrix of options and trees. The port walks directories in readdir
// order; tooltest.RunSorted makes that order bytewise, the writer's. The
// only bytes allowed to differ are those MaskRandom clears: fs_id[1] and
// di_gen, which FreeBSD takes from its random(3) and the port from
// glibc's, and the in-core pointers fs_ocsp..fs_active, which fixturegen
// writes as zero.

// fbsdStamp is the -T time of every comparison.
var fbsdStamp = time.Unix(1600000000, 0).UTC()

// fbsdTrees builds the source trees of the comparison under dir and
// returns their paths by name.
func fbsdTrees(t *testing.T, dir string) map[string]string {
	t.Helper()
	mk := func(root, name string, size int, seed byte) {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		b := make([]byte, size)
		for i := range b {
			b[i] = byte(i*7) + seed + byte(i>>9)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	symlink := func(root, name, target string) {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	trees := map[string]string{}

	// mixed: every kind of node, files that end in fragments and one past
	// the 12 direct blocks at every block size up to 32768.
	mixed := filepath.Join(dir, "mixed")
	trees["mixed"] = mixed
	mk(mixed, "a/empty", 0, 0)
	mk(mixed, "a/small", 100, 1)
	mk(mixed, "a/frag3k", 3000, 2)
	mk(mixed, "b/direct", 13*32768+100, 3)
	mk(mixed, "c/d/e/deep", 5000, 5)
	mk(mixed, "z", 20000, 6)
	symlink(mixed, "a/short", "small")
	symlink(mixed, "a/long", strings.Repeat("x/", 60)+"target") // past UFS1's and UFS2's inline limit
	symlink(mixed, "c/up", "../z")
	if err := os.Link(filepath.Join(mixed, "a/small"), filepath.Join(mixed, "b/hard")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(mixed, "a/frag3k"), 0o4755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(mixed, "c/fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A socket node, which both makefs leave out (mknod makes one without
	// privileges or sun_path's length limit).
	if err := syscall.Mknod(filepath.Join(mixed, "c/sock"), syscall.S_IFSOCK|0o666, 0); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		if err := syscall.Mknod(filepath.Join(mixed, "c/tty"), syscall.S_IFCHR|0o620, int(fstree.Mkdev(4, 1))); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mknod(filepath.Join(mixed, "c/disk"), syscall.S_IFBLK|0o660, int(fstree.Mkdev(8, 3))); err != nil {
			t.Fatal(err)
		}
	}

	// indirect: a file past the single indirect block at bsize 4096 for
	// both versions ((12+1024) blocks of 4096 bytes for UFS1).
	ind := filepath.Join(dir, "indirect")
	trees["indirect"] = ind
	mk(ind, "big", (12+1024)*4096+5000, 9)
	mk(ind, "after", 700, 10)
	mk(ind, "z", 1, 11)

	// bigdir: a directory of many blocks.
	bigdir := filepath.Join(dir, "bigdir")
	trees["bigdir"] = bigdir
	for i := 0; i < 400; i++ {
		mk(bigdir, fmt.Sprintf("d/entry-with-a-long-name-to-fill-directory-blocks-%03d", i), i%7*300, byte(i))
	}
	mk(bigdir, "z", 10, 0)
	// random: a tree drawn from a fixed seed, files of every size up to
	// past the direct blocks at 32768, symlinks of every length, hard
	// links and nested directories.
	rnd := filepath.Join(dir, "random")
	trees["random"] = rnd
	mk(rnd, "z", 1, 0)
	r := rand.New(rand.NewPCG(10, 1600000000))
	var files []string
	for i := 0; i < 150; i++ {
		name := fmt.Sprintf("d%d/e%d/f%03d", r.IntN(5), r.IntN(3), i)
		if r.IntN(4) == 0 {
			name = fmt.Sprintf("t%03d", i)
		}
		size := r.IntN(40000)
		switch r.IntN(8) {
		case 0:
			size = 0
		case 1:
			size = 12*32768 + r.IntN(200000)
		}
		mk(rnd, name, size, byte(i))
		files = append(files, name)
		switch r.IntN(10) {
		case 0:
			symlink(rnd, name+".l", strings.Repeat("s", 1+r.IntN(200)))
		case 1:
			if err := os.Link(filepath.Join(rnd, files[r.IntN(len(files))]), filepath.Join(rnd, name+".h")); err != nil {
				t.Fatal(err)
			}
		}
	}
	return trees
}

// fbsdCase is one comparison: a tree and the makefs arguments for it,
// besides -t ffs and -T.
type fbsdCase struct {
	tree string
	args string
}

// fbsdMatrix is the comparison matrix.
var fbsdMatrix = func() []fbsdCase {
	var cs []fbsdCase
	add := func(tree, args string) { cs = append(cs, fbsdCase{tree, args}) }
	for _, v := range []string{"-o version=1", "-o version=2"} {
		add("mixed", v)
		add("mixed", v+" -s 4m")
		add("mixed", v+" -s 20m")
		for _, bf := range []string{"4096,fsize=512", "8192,fsize=1024", "16384,fsize=2048", "32768,fsize=4096",
			"65536,fsize=8192", "8192,fsize=8192", "4096,fsize=4096"} {
			add("mixed", v+",bsize="+bf)
			add("mixed", v+",bsize="+bf+" -s 8m")
		}
		add("mixed", v+",density=4096")
		add("mixed", v+",density=100")
		add("mixed", v+",fsize=512")
		add("mixed", v+",fsize=1024")
		add("mixed", v+",bsize=4096")
		add("mixed", v+" -M 1000000")
		add("mixed", v+",density=65536 -s 8m")
		add("mixed", v+",minfree=0 -s 4m")
		add("mixed", v+",minfree=2")
		add("mixed", v+",minfree=30 -s 6m")
		add("mixed", v+" -f 50")
		add("mixed", v+" -f 20%")
		add("mixed", v+" -b 1m")
		add("mixed", v+" -b 30%")
		add("mixed", v+" -M 3m")
		add("mixed", v+",maxbpg=2,bsize=4096,fsize=1024")
		add("mixed", v+",avgfilesize=4096,avgfpdir=8")
		add("mixed", v+",optimization=space,bsize=8192,fsize=1024")
		add("mixed", v+",extent=131072")
		add("mixed", v+",maxbpcg=256,bsize=4096,fsize=512 -s 8m")
		add("mixed", v+",softupdates=1")
		add("mixed", v+",label=FIXTURE")
		add("mixed", v+" -B be")
		add("mixed", v+",bsize=8192,fsize=1024 -B be -s 6m")
		add("mixed", v+" -B le")
		add("mixed", v+",maxbpg=3,bsize=4096,fsize=512")
		add("mixed", v+",label=FIXTURE -S 4096 -s 8m")
		add("mixed", v+",bsize=8192,fsize=4096 -S 4096 -B be")
		add("mixed", v+",optimization=space,minfree=2")
		add("mixed", v+",label=FIXTURE,softupdates=1 -B be")
		add("mixed", v+" -S 4096")
		add("mixed", v+" -R 1m")
		add("mixed", v+" -O 64k -b 10%")
		add("mixed", v+" -m 4m")
		add("mixed", v+" -M 3m -m 4m")
		add("mixed", v+" -f 10 -b 64k")
		add("mixed", v+",extent=65536,bsize=16384,fsize=2048")
		add("mixed", v+",avgfilesize=100000,avgfpdir=500 -s 8m")
		add("mixed", v+",bsize=4096,fsize=512 -s 16m")
		add("indirect", v+",bsize=4096,fsize=512")
		add("indirect", v+",bsize=4096,fsize=1024 -B be")
		add("indirect", v)
		add("random", v)
		add("random", v+",bsize=4096,fsize=512")
		add("random", v+",bsize=8192,fsize=1024 -s 32m")
		add("random", v+",bsize=16384,fsize=2048,maxbpg=8 -B be")
		add("random", v+",optimization=space,bsize=8192,fsize=1024,avgfpdir=4")
		add("random", v+",maxbpcg=2048,bsize=4096,fsize=512 -s 32m") // files spill over many small groups
		add("indirect", v+",maxbpcg=1024,bsize=4096,fsize=1024,maxbpg=16 -s 16m")
		add("bigdir", v+",bsize=4096,fsize=512")
		add("bigdir", v)
	}
	return cs
}()

// TestFreeBSDBytes compares every case of the matrix with freebsd-makefs,
// and has sleuthkit read a sample of them back.
func TestFreeBSDBytes(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "freebsd-makefs")
	trees := fbsdTrees(t, t.TempDir())
	// sleuthkit reads back every case with -short and FIXTUREGEN_LONG=1,
	// by default a third of them with every tree, version and sector
	// size: the images are FreeBSD's makefs's bytes already.
	reads := tooltest.NewSampler(3)
	for k, c := range fbsdMatrix {
		if !tooltest.ShortSample(k, 3) {
			continue // -short (CI's race run): every third case; the run without -short, all
		}
		version, _, _ := strings.Cut(strings.Fields(c.args)[1], ",")
		readBack := testing.Short() || reads.Keep("tree="+c.tree, version, fmt.Sprint("-S 4096 ", strings.Contains(c.args, "-S 4096")))
		t.Run(c.tree+" "+c.args, func(t *testing.T) {
			t.Parallel()
			src := trees[c.tree]
			args := append([]string{"-t", "ffs", "-T", fmt.Sprint(fbsdStamp.Unix())}, strings.Fields(c.args)...)
			img := filepath.Join(t.TempDir(), "makefs.img")
			tooltest.RunSorted(t, "", "freebsd-makefs", append(args, img, src)...)
			want, err := os.ReadFile(img)
			if err != nil {
				t.Fatal(err)
			}
			o := fbsdOptions(t, strings.Fields(c.args))
			got, err := ffs.Build(fstree.Dir(src), o)
			if err != nil {
				t.Fatal(err)
			}
			if err := ffs.CheckClusterSums(got[o.Offset:]); err != nil {
				t.Error(err)
			}
			if readBack {
				sleuthkitReads(t, got[o.Offset:], o.Version, strings.Contains(c.args, "-S 4096"))
			}
			if off := o.Offset; off > 0 {
				if int64(len(want)) < off || !bytes.Equal(want[:off], got[:min(off, int64(len(got)))]) {
					t.Fatalf("the %d bytes before the file system differ", off)
				}
				want, got = want[off:], got[off:]
			}
			compareFreeBSD(t, want, got, o.Version == 2 && o.ByteOrder == binary.BigEndian)
		})
	}
}

// sleuthkitReads checks that sleuthkit's fls lists the image's tree (every
// tree of the matrix has a file z at its top), as it lists every image
// fixturegen writes. sleuthkit gives up on UFS1
// images smaller than 263680 bytes (see Checking with sleuthkit in DETAILS.md), so those are
// read padded with zeros to that size, and it assumes 512-byte sectors in
// its tsk_fs_open_img, so images made for 4096-byte sectors are given to
// it with -b 4096.
func sleuthkitReads(t *testing.T, img []byte, version int, sector4k bool) {
	t.Helper()
	fls := tooltest.Need(t, "fls")
	if version != 2 && len(img) < 263680 {
		img = append(bytes.Clone(img), make([]byte, 263680-len(img))...)
	}
	path := filepath.Join(t.TempDir(), "fixturegen.img")
	if err := os.WriteFile(path, img, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-r", "-p"}
	if sector4k {
		args = append(args, "-b", "4096")
	}
	out, err := exec.Command(fls, append(args, path)...).CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("\tz\n")) {
		t.Errorf("fls -r: %v\n%.2000s", err, out)
	}
}

// fbsdOptions turns the makefs arguments of the matrix into Options.
func fbsdOptions(t *testing.T, args []string) *ffs.Options {
	t.Helper()
	o := &ffs.Options{Timestamp: fbsdStamp}
	num := func(s string) int64 {
		n, err := fsopt.ParseNumber(s, 0, 1<<62)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for i := 0; i < len(args); i += 2 {
		flag, val := args[i], args[i+1]
		pct := strings.HasSuffix(val, "%")
		switch flag {
		case "-o":
			for _, kv := range strings.Split(val, ",") {
				k, v, _ := strings.Cut(kv, "=")
				if err := ffs.ParseOption(o, k, v); err != nil {
					t.Fatal(err)
				}
			}
		case "-s": // the minimum and the maximum, which a later -M or -m changes
			o.MinSize, o.MaxSize = num(val), num(val)
		case "-M":
			o.MinSize = num(val)
		case "-b":
			if pct {
				o.FreeBlocksPct = int(num(strings.TrimSuffix(val, "%")))
			} else {
				o.FreeBlocks = num(val)
			}
		case "-f":
			if pct {
				o.FreeFilesPct = int(num(strings.TrimSuffix(val, "%")))
			} else {
				o.FreeFiles = num(val)
			}
		case "-m":
			o.MaxSize = num(val)
		case "-S":
			o.SectorSize = int(num(val))
		case "-R":
			o.Roundup = num(val)
		case "-O":
			o.Offset = num(val)
		case "-B":
			o.ByteOrder = map[string]binary.ByteOrder{"be": binary.BigEndian, "le": binary.LittleEndian}[val]
		default:
			t.Fatalf("fbsdOptions: flag %s", flag)
		}
	}
	if o.MinSize > 0 && o.MinSize == o.MaxSize {
		o.Size, o.MinSize, o.MaxSize = o.MinSize, 0, 0 // as fixturegen makefs gives -s
	}
	return o
}

// compareFreeBSD fails the test where want (freebsd-makefs's image) and
// got differ outside the fields MaskRandom clears, with inspect.Diff's
// report of the difference. An fs_maxbsize past FS_MAXCONTIG blocks in
// want is first lowered to that, as the writer writes it (ClampMaxbsize).
// With clusterSum, cg_clustersum is left out too: FreeBSD's makefs writes it in the host's byte order in a
// big-endian UFS2 image, where fixturegen writes it big-endian (the
// caller checks fixturegen's with CheckClusterSums). It masks want and
// got in place: the callers are done with them, and copies of images of
// tens of MiB cost more than the rest of a comparison.
func compareFreeBSD(t *testing.T, want, got []byte, clusterSum bool) {
	t.Helper()
	mw, mg := want, got
	if _, err := ffs.ClampMaxbsize(mw); err != nil {
		t.Fatalf("freebsd-makefs's image: %v", err)
	}
	for _, m := range []struct {
		img  []byte
		name string
	}{{mw, "freebsd-makefs's"}, {mg, "fixturegen's"}} {
		if err := ffs.MaskRandom(m.img); err != nil {
			t.Fatalf("%s image: %v", m.name, err)
		}
		if clusterSum {
			if err := ffs.MaskClusterSums(m.img); err != nil {
				t.Fatalf("%s image: %v", m.name, err)
			}
		}
	}
	if bytes.Equal(mw, mg) {
		return
	}
	rep, err := inspect.Diff(bytes.NewReader(mw), int64(len(mw)), bytes.NewReader(mg), int64(len(mg)))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	rep.Write(&b, "freebsd-makefs", "fixturegen")
	t.Errorf("the images differ outside fs_id[1], fs_ocsp..fs_active and di_gen:\n%s", b.String())
}

// sampleValues names the values of one of TestFreeBSDRandomOptions' sets
// for tooltest.Sampler: the tree, the version, the block and fragment
// sizes, the other -o options by name, and each flag with its value.
func sampleValues(tree string, opts, flags []string) []string {
	v := []string{"tree=" + tree, opts[0], opts[1] + "," + opts[2]}
	for _, o := range opts[3:] {
		k, _, _ := strings.Cut(o, "=")
		v = append(v, k)
	}
	for i := 0; i+1 < len(flags); i += 2 {
		v = append(v, flags[i]+" "+flags[i+1])
	}
	return v
}

// TestFreeBSDRandomOptions compares option sets drawn from a fixed seed,
// every option combined with the others, with freebsd-makefs on the trees
// of the matrix. Where FreeBSD's makefs refuses a set or fails to fit
// the tree, the writer may refuse it too or write an image, which must
// then be valid (see the differences in DETAILS.md); every other set must
// give FreeBSD's bytes. FIXTUREGEN_LONG=1 compares all 150 sets; by
// default every third is compared, and each set with a tree, a block and
// fragment size, a version, an option or a flag's value that no set
// compared before has; with -short every fifth.
func TestFreeBSDRandomOptions(t *testing.T) {
	t.Parallel()
	makefs := tooltest.Need(t, "freebsd-makefs")
	shim := tooltest.SortedReaddir(t)
	trees := fbsdTrees(t, t.TempDir())
	r := rand.New(rand.NewPCG(2025, 5))
	pick := func(s ...string) string { return s[r.IntN(len(s))] }
	sample := tooltest.NewSampler(3)
	defer sample.Log(t)
	for i := 0; i < 150; i++ {
		bf := pick("4096,512", "4096,4096", "8192,1024", "8192,2048", "16384,2048", "16384,16384", "32768,4096", "32768,8192", "65536,8192", "65536,65536")
		b, f, _ := strings.Cut(bf, ",")
		opts := []string{"version=" + pick("1", "2"), "bsize=" + b, "fsize=" + f}
		maybe := func(o string) {
			if r.IntN(4) == 0 {
				opts = append(opts, o)
			}
		}
		maybe("density=" + pick("2048", "4096", "16384", "100000"))
		maybe("minfree=" + pick("0", "1", "5", "20", "50"))
		maybe("maxbpg=" + pick("1", "4", "64", "2048"))
		maybe("avgfilesize=" + pick("512", "4096", "100000"))
		maybe("avgfpdir=" + pick("1", "16", "1000"))
		maybe("optimization=" + pick("time", "space"))
		maybe("extent=" + pick("65536", "131072", "1048576"))
		maybe("maxbpcg=" + pick("512", "4096", "100000"))
		maybe("softupdates=1")
		maybe("label=L" + fmt.Sprint(i))
		args := []string{"-o", strings.Join(opts, ",")}
		flag := func(f string, vals ...string) {
			if r.IntN(4) == 0 {
				args = append(args, f, pick(vals...))
			}
		}
		flag("-s", "4m", "8m", "16m", "40m")
		flag("-b", "64k", "1m", "10%", "50%")
		flag("-f", "10", "500", "20%")
		flag("-B", "be", "le")
		flag("-M", "1m", "6m")
		flag("-R", "1m", "3m")
		if r.IntN(10) == 0 {
			args = append(args, "-S", "4096")
		}
		tree := pick("mixed", "random", "indirect", "bigdir")
		switch {
		case testing.Short():
			if i%5 != 0 {
				continue // -short: every fifth case, each with the options it has in the full run
			}
		case !sample.Keep(sampleValues(tree, opts, args[2:])...):
			continue // by default every third case and those with new values; FIXTUREGEN_LONG=1, all
		}
		t.Run(fmt.Sprintf("%d %s %s", i, tree, strings.Join(args, " ")), func(t *testing.T) {
			t.Parallel()
			src := trees[tree]
			img := filepath.Join(t.TempDir(), "makefs.img")
			cmd := exec.Command(makefs, append(append([]string{"-t", "ffs", "-T", fmt.Sprint(fbsdStamp.Unix())}, args...), img, src)...)
			cmd.Env = append(os.Environ(), "LD_PRELOAD="+shim, "TZ=UTC")
			out, ferr := cmd.CombinedOutput()
			o := fbsdOptions(t, args)
			got, err := ffs.Build(fstree.Dir(src), o)
			if ferr != nil {
				t.Logf("freebsd-makefs fails (%v): %.300s", ferr, out)
				if err == nil {
					if err := ffs.CheckClusterSums(got); err != nil {
						t.Error(err)
					}
					sleuthkitReads(t, got, o.Version, o.SectorSize == 4096)
				}
				return
			}
			if err != nil {
				t.Fatalf("freebsd-makefs makes the image, fixturegen: %v", err)
			}
			want, err := os.ReadFile(img)
			if err != nil {
				t.Fatal(err)
			}
			if err := ffs.CheckClusterSums(got); err != nil {
				t.Error(err)
			}
			sleuthkitReads(t, got, o.Version, o.SectorSize == 4096)
			compareFreeBSD(t, want, got, o.Version == 2 && o.ByteOrder == binary.BigEndian)
		})
	}
}
