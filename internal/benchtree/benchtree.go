// Package benchtree generates the source trees that fixturegen's benchmarks
// build images from. Every tree is a deterministic function of its kind: the
// same names, sizes, contents, modes and times on any machine, from
// math/rand/v2's PCG generator with fixed seeds and integer arithmetic only
// (no clock, no map order, no floating point).
//
// The kinds are:
//
//   - small: 200 files in 20 directories, sizes from 0 to 64 KiB;
//   - medium: 5,000 files in 200 directories, about 200 MiB: most files
//     under 8 KiB, 100 between 256 KiB and 12 MiB, and every 7th file name
//     long, mixed-case and with spaces (so FAT needs long-name entries);
//   - midsize: 3,000 files in 50 directories, about 218 MiB: 2,970 of
//     4 KiB to 256 KiB (each power-of-two range equally likely, uniform
//     within it) and 30 between 1 MiB and 1.25 MiB, the shape of a tree of
//     sources, objects and assets, where per-file costs and data copying
//     weigh alike;
//   - big: 20 files of 20 MiB.
package benchtree

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Kinds lists the tree kinds in increasing size.
var Kinds = []string{"small", "medium", "midsize", "big"}

// Time is the modification and access time of every file and directory.
var Time = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

// version changes whenever the generator's output changes, so that stale
// trees are regenerated.
const version = "benchtree v1"

// File is one file of a tree's plan.
type File struct {
	Path string // slash-separated, relative to the tree root
	Size int64
	Seed uint64 // the seed of its contents
}

// Plan is the shape of a tree: its directories (parents before children)
// and files, in creation order.
type Plan struct {
	Kind  string
	Dirs  []string
	Files []File
}

// Size returns the total size of the plan's files.
func (p *Plan) Size() int64 {
	var n int64
	for _, f := range p.Files {
		n += f.Size
	}
	return n
}

const (
	kiB = 1 << 10
	miB = 1 << 20
)

// PlanFor returns the plan of a tree kind.
func PlanFor(kind string) (*Plan, error) {
	switch kind {
	case "small":
		return planTree(kind, 1, 4, 4, 200, func(r *rand.Rand, i int) int64 { return r.Int64N(64*kiB + 1) }, nil), nil
	case "medium":
		r := rand.New(rand.NewPCG(2, 0x6d656469756d))
		large := map[int]int{} // file index → rank among the large files
		for rank, i := range r.Perm(5000)[:100] {
			large[i] = rank
		}
		size := func(r *rand.Rand, i int) int64 {
			rank, ok := large[i]
			switch {
			case !ok:
				// Most files are small: under 8 KiB, with one in 50 empty.
				if r.IntN(50) == 0 {
					return 0
				}
				return r.Int64N(8 * kiB)
			case rank < 10:
				return 4*miB + r.Int64N(7*miB)
			case rank < 40:
				return 1*miB + r.Int64N(3*miB)
			default:
				return 256*kiB + r.Int64N(768*kiB)
			}
		}
		return planTree(kind, 2, 20, 9, 5000, size, func(i int) bool { return i%7 == 6 }), nil
	case "midsize":
		r := rand.New(rand.NewPCG(4, 0x6d696473697a65))
		large := map[int]bool{}
		for _, i := range r.Perm(3000)[:30] {
			large[i] = true
		}
		size := func(r *rand.Rand, i int) int64 {
			if large[i] {
				return 1*miB + 1 + r.Int64N(256*kiB)
			}
			// 4 KiB << octave up to twice that, octaves 0 to 5: 4 KiB to
			// 256 KiB.
			base := int64(4*kiB) << r.IntN(6)
			return base + r.Int64N(base+1)
		}
		return planTree(kind, 4, 10, 4, 3000, size, nil), nil
	case "big":
		p := &Plan{Kind: kind}
		for i := range 20 {
			p.Files = append(p.Files, File{Path: fmt.Sprintf("big%02d.bin", i), Size: 20 * miB, Seed: 3<<32 | uint64(i)})
		}
		return p, nil
	}
	return nil, fmt.Errorf("benchtree: unknown kind %q (want one of %s)", kind, strings.Join(Kinds, ", "))
}

// planTree lays out top directories with sub subdirectories each and
// nfiles files spread over all of them.
func planTree(kind string, seed uint64, top, sub, nfiles int, size func(*rand.Rand, int) int64, long func(int) bool) *Plan {
	p := &Plan{Kind: kind}
	for t := range top {
		d := fmt.Sprintf("dir%02d", t)
		p.Dirs = append(p.Dirs, d)
		for s := range sub {
			p.Dirs = append(p.Dirs, fmt.Sprintf("%s/sub%d", d, s))
		}
	}
	r := rand.New(rand.NewPCG(seed, 0x62656e6368))
	exts := []string{"txt", "bin", "c", "h", "dat", "json", "o", "png"}
	for i := range nfiles {
		dir := p.Dirs[r.IntN(len(p.Dirs))]
		var name string
		if long != nil && long(i) {
			name = longName(r, i)
		} else {
			name = fmt.Sprintf("f%04d.%s", i, exts[r.IntN(len(exts))])
		}
		p.Files = append(p.Files, File{Path: dir + "/" + name, Size: size(r, i), Seed: seed<<32 | uint64(i)})
	}
	return p
}

var words = []string{"Alpha", "bravo", "Charlie", "DELTA", "echo", "Foxtrot", "golf", "Hotel",
	"india", "Juliett", "kilo", "Lima", "MIKE", "november", "Oscar", "papa"}

// longName returns a long, mixed-case file name with spaces, unique by i.
func longName(r *rand.Rand, i int) string {
	n := 3 + r.IntN(6)
	parts := make([]string, 0, n+1)
	for range n {
		parts = append(parts, words[r.IntN(len(words))])
	}
	parts = append(parts, fmt.Sprintf("No %d.Text File", i))
	return strings.Join(parts, " ")
}

// Generate makes sure dir holds the tree of the given kind. It writes the
// stamp file dir+".stamp" when the tree is complete; when that stamp is
// present and current it does nothing, and otherwise it removes dir and
// generates the tree again.
func Generate(dir, kind string) error {
	p, err := PlanFor(kind)
	if err != nil {
		return err
	}
	stamp := filepath.Clean(dir) + ".stamp"
	want := []byte(version + " " + kind + "\n")
	if have, err := os.ReadFile(stamp); err == nil && bytes.Equal(have, want) {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return nil
		}
	}
	if err := os.Remove(stamp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := write(dir, p); err != nil {
		return err
	}
	return os.WriteFile(stamp, want, 0o644)
}

func write(dir string, p *Plan) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, d := range p.Dirs {
		if err := os.Mkdir(filepath.Join(dir, filepath.FromSlash(d)), 0o755); err != nil {
			return err
		}
	}
	buf := make([]byte, 1*miB)
	for _, f := range p.Files {
		if err := writeFile(filepath.Join(dir, filepath.FromSlash(f.Path)), f, buf); err != nil {
			return err
		}
	}
	// Fix modes and times last, children before parents, so that creating
	// a child does not touch its directory's time afterwards.
	for i := len(p.Files) - 1; i >= 0; i-- {
		if err := settle(filepath.Join(dir, filepath.FromSlash(p.Files[i].Path)), 0o644); err != nil {
			return err
		}
	}
	for i := len(p.Dirs) - 1; i >= 0; i-- {
		if err := settle(filepath.Join(dir, filepath.FromSlash(p.Dirs[i])), 0o755); err != nil {
			return err
		}
	}
	return settle(dir, 0o755)
}

func settle(path string, mode os.FileMode) error {
	if err := os.Chmod(path, mode); err != nil {
		return err
	}
	return os.Chtimes(path, Time, Time)
}

// writeFile writes f's contents: bytes from a PCG stream seeded by f.Seed.
func writeFile(path string, f File, buf []byte) error {
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	r := rand.NewPCG(f.Seed, 0x636f6e74656e7473)
	for left := f.Size; left > 0; {
		n := min(left, int64(len(buf)))
		Fill(r, buf[:n])
		if _, err := out.Write(buf[:n]); err != nil {
			out.Close()
			return err
		}
		left -= n
	}
	return out.Close()
}

// Fill fills b with bytes from src, eight at a time, little-endian.
func Fill(src *rand.PCG, b []byte) {
	for len(b) >= 8 {
		binary.LittleEndian.PutUint64(b, src.Uint64())
		b = b[8:]
	}
	if len(b) > 0 {
		var tail [8]byte
		binary.LittleEndian.PutUint64(tail[:], src.Uint64())
		copy(b, tail[:])
	}
}
