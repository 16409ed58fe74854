package benchtree

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// digest describes a tree on disk: every path with its type, mode, size,
// time and content hash, in walk order.
func digest(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(&b, "%s %v %d %d", filepath.ToSlash(rel), fi.Mode(), fi.Size(), fi.ModTime().Unix())
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %x", sha256.Sum256(data))
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestGenerateIsDeterministic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := Generate(a, "small"); err != nil {
		t.Fatal(err)
	}
	if err := Generate(b, "small"); err != nil {
		t.Fatal(err)
	}
	da, db := digest(t, a), digest(t, b)
	if da != db {
		t.Fatal("two generations of the small tree differ")
	}
	// The shape: 200 files in 20 directories (besides the root), 0..64 KiB.
	files, dirs := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(da), "\n") {
		f := strings.Fields(line)
		switch {
		case f[0] == ".":
		case strings.HasPrefix(f[1], "d"):
			dirs++
		default:
			files++
			var size int64
			fmt.Sscan(f[2], &size)
			if size < 0 || size > 64<<10 {
				t.Errorf("%s: size %d", f[0], size)
			}
		}
	}
	if files != 200 || dirs != 20 {
		t.Errorf("small tree has %d files in %d directories, want 200 in 20", files, dirs)
	}

	// Generate again is a no-op while the stamp is current, and rebuilds
	// when it is missing.
	os.WriteFile(filepath.Join(a, "extra"), nil, 0o644)
	if err := Generate(a, "small"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(a, "extra")); err != nil {
		t.Error("Generate rebuilt a tree with a current stamp")
	}
	os.Remove(a + ".stamp")
	if err := Generate(a, "small"); err != nil {
		t.Fatal(err)
	}
	if digest(t, a) != db {
		t.Error("regenerated tree differs")
	}
}

func TestPlans(t *testing.T) {
	t.Parallel()
	const kiB, miB = 1 << 10, 1 << 20
	for _, tc := range []struct {
		kind               string
		files, dirs        int
		minTotal, maxTotal int64
		longEvery, nlarge  int
		smallMin, smallMax int64
		largeFrom          int64
	}{
		{"small", 200, 20, 0, 200 * 64 * kiB, 0, 0, 0, 64 * kiB, 0},
		{"medium", 5000, 200, 180 * miB, 220 * miB, 7, 100, 0, 8 * kiB, 256 * kiB},
		{"midsize", 3000, 50, 200 * miB, 230 * miB, 0, 30, 4 * kiB, 256 * kiB, miB + 1},
		{"big", 20, 0, 400 * miB, 400 * miB, 0, 20, 0, 0, 20 * miB},
	} {
		p, err := PlanFor(tc.kind)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Files) != tc.files || len(p.Dirs) != tc.dirs {
			t.Errorf("%s: %d files in %d directories, want %d in %d", tc.kind, len(p.Files), len(p.Dirs), tc.files, tc.dirs)
		}
		if s := p.Size(); s < tc.minTotal || s > tc.maxTotal {
			t.Errorf("%s: total %d MiB, want %d..%d MiB", tc.kind, s/miB, tc.minTotal/miB, tc.maxTotal/miB)
		}
		seen := map[string]bool{}
		nlarge, nsmall := 0, 0
		for i, f := range p.Files {
			if seen[f.Path] {
				t.Errorf("%s: %s twice", tc.kind, f.Path)
			}
			seen[f.Path] = true
			base := f.Path[strings.LastIndexByte(f.Path, '/')+1:]
			isLong := len(base) > 12 && strings.Contains(base, " ") && strings.ToLower(base) != base && strings.ToUpper(base) != base
			if want := tc.longEvery > 0 && i%tc.longEvery == tc.longEvery-1; isLong != want {
				t.Errorf("%s: file %d %q: long mixed-case name = %v, want %v", tc.kind, i, base, isLong, want)
			}
			switch {
			case tc.largeFrom > 0 && f.Size >= tc.largeFrom && f.Size <= 20*miB:
				nlarge++
				if tc.kind == "medium" && f.Size > 12*miB || tc.kind == "midsize" && f.Size > miB+256*kiB {
					t.Errorf("%s: %s has %d bytes, too many", tc.kind, f.Path, f.Size)
				}
			case f.Size >= tc.smallMin && f.Size <= tc.smallMax:
				nsmall++
			default:
				t.Errorf("%s: %s has %d bytes", tc.kind, f.Path, f.Size)
			}
		}
		if nlarge != tc.nlarge || nsmall != tc.files-tc.nlarge {
			t.Errorf("%s: %d large and %d small files, want %d large", tc.kind, nlarge, nsmall, tc.nlarge)
		}
	}
	if _, err := PlanFor("huge"); err == nil {
		t.Error("PlanFor(huge) did not fail")
	}
}
