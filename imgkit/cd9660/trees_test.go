package cd9660

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

func TestMain(m *testing.M) { tooltest.Main(m) }

// entry is one entry of a test tree: a directory when the name ends in
// "/", a symbolic link when link is set, a hard link to an earlier file
// when hard is set, a fifo or device when special is "fifo", "char" or
// "block", else a file of size bytes.
type entry struct {
	name    string
	size    int
	mode    os.FileMode
	link    string
	hard    string
	special string
}

// long returns n copies of c.
func long(c string, n int) string { return strings.Repeat(c, n) }

// deepPath is a path of n nested one-letter directories.
func deepPath(n int) string {
	var parts []string
	for i := range n {
		parts = append(parts, string(rune('a'+i)))
	}
	return strings.Join(parts, "/")
}

// testTrees are the source trees of the tests, by name.
var testTrees = map[string][]entry{
	"basic": {
		{name: "README.TXT", size: 100},
		{name: "A Long File Name With Spaces.text", size: 9000},
		{name: "empty"},
		{name: "ro.bin", size: 700, mode: 0o444},
		{name: "dir1/Sub Directory/deep/file.c", size: 1234},
		{name: "dir1/x.y.z", size: 1},
		{name: "emptydir/"},
		{name: "mixedCase.Txt", size: 3},
		{name: ".hidden", size: 5},
		{name: "noext", size: 2},
		{name: "multi.dot.name.tar.gz", size: 4},
		{name: "a+b", size: 1}, {name: "a-b", size: 2}, {name: "a=b", size: 3},
		{name: "ünïcødé name", size: 6},
		{name: long("a", 55) + ".txt", size: 7}, {name: long("a", 54) + "b.txt", size: 8},
		{name: "abcdefghij.txt", size: 9}, {name: "abcdefghik.txt", size: 10},
		{name: "UPPERDIR/lower.c", size: 11},
		{name: "dir.with.dots/f", size: 1},
		{name: long("e", 35) + "/g", size: 2},
		{name: "big.bin", size: 300 << 10},
		{name: "exact.bin", size: 4096},
	},
	"links": {
		{name: "target.txt", size: 3000},
		{name: "sub/hard", hard: "target.txt"},
		{name: "zz-hard", hard: "target.txt"},
		{name: "rel", link: "target.txt"},
		{name: "abs", link: "/usr/local/share/doc"},
		{name: "dots", link: "../../x/./y/.."},
		{name: "dir", link: "sub"},
		{name: "fifo", special: "fifo"},
		{name: "tty", special: "char"},
		{name: "disk", special: "block"},
		{name: "sub/more.txt", size: 10},
	},
	"longlink": {
		{name: "target", size: 1},
		{name: "l264", link: "/" + strings.Join(func() []string {
			var c []string
			for i := range 24 {
				c = append(c, fmt.Sprintf("component%02d", i))
			}
			return c
		}(), "/")},
		{name: "l400", link: long("x", 200) + "/" + long("y", 199)},
	},
	"longname": {
		{name: long("n", 185), size: 1},
		{name: "dir/" + long("m", 200), size: 3000},
		{name: "zz", size: 4},
	},
	"many": func() []entry {
		var e []entry
		for i := range 200 {
			e = append(e, entry{name: fmt.Sprintf("many/a rather long file name %03d.data", i), size: i * 37})
		}
		return e
	}(),
	"collide": func() []entry {
		var e []entry
		for i, c := range "!#$%&'()+,-=@[]^_`{}~" {
			e = append(e, entry{name: "a" + string(c) + "b", size: i})
			e = append(e, entry{name: "dir" + string(c) + "x/f", size: i})
		}
		for i := range 25 {
			e = append(e, entry{name: fmt.Sprintf("%s%02d.txt", long("p", 30), i), size: i})
			e = append(e, entry{name: fmt.Sprintf("%s%02d", long("Q", 32), i), size: i})
		}
		return e
	}(),
	"riscos": {
		{name: "prog,ffb", size: 10}, {name: "text,fff", size: 3000}, {name: "odd,zzz", size: 1},
		{name: "!App/!Run,feb", size: 5}, {name: "!Boot/"}, {name: "plain", size: 2}, {name: "a,b", size: 1},
		{name: "dotted.name,fff", size: 4}, {name: "long name with a type,ffd", size: 6},
	},
	// extents: each kind of entry that makefs gives no sector of its own
	// (a symlink, an empty file, a fifo, a device, a second hard link),
	// followed by a regular file, symlinks last in a directory and in the
	// root, and an empty file whose extent (the next free sector) is the
	// next directory's.
	"extents": {
		{name: "a-link", link: "z-target.txt"},
		{name: "b-file", size: 3000},
		{name: "c-empty"},
		{name: "d-file", size: 100},
		{name: "e-fifo", special: "fifo"},
		{name: "f-file", size: 2049},
		{name: "g-tty", special: "char"},
		{name: "h-file", size: 7},
		{name: "i-hard", hard: "b-file"},
		{name: "j-file", size: 1},
		{name: "k-link", link: "a-target-longer-than-the-file-after-it/" + long("x", 100)},
		{name: "l-file", size: 5},
		{name: "sub/a-dirlink", link: ".."},
		{name: "sub/b-file", size: 4096},
		{name: "sub/zz-link", link: "b-file"},
		{name: "sub/zzz-empty"},
		{name: "sub2/"},
		{name: "z-target.txt", size: 12},
		{name: "zz-link", link: "sub/b-file"},
	},
	"deep9": {
		{name: deepPath(9) + "/leaf.txt", size: 5},
		{name: "top.txt", size: 3},
	},
	"deep15": {
		{name: deepPath(15) + "/leaf.txt", size: 5},
		{name: deepPath(8) + "/side/f", size: 2},
		{name: "z/top.txt", size: 3},
	},
}

// makeTree makes the named test tree in a new temporary directory and
// returns the directory. Devices are made only as root; the test is
// skipped for them otherwise.
func makeTree(t *testing.T, name string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "src")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, e := range testTrees[name] {
		p := filepath.Join(root, e.name)
		if strings.HasSuffix(e.name, "/") {
			must(t, os.MkdirAll(p, 0o755))
			continue
		}
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		makeEntry(t, root, p, i, e)
	}
	return root
}

// makeEntry makes one non-directory entry of a tree.
func makeEntry(t *testing.T, root, p string, i int, e entry) {
	t.Helper()
	switch {
	case e.link != "":
		must(t, os.Symlink(e.link, p))
	case e.hard != "":
		must(t, os.Link(filepath.Join(root, e.hard), p))
	case e.special == "fifo":
		must(t, mkfifo(p, 0o644))
	case e.special != "":
		if !canMknod {
			t.Skipf("skipping: the device %s is made on Linux only", e.name)
		}
		if os.Geteuid() != 0 {
			tooltest.Missing(t, "making the device "+e.name+" needs root")
		}
		kind, perm, dev := byte('c'), uint32(0o620), 4<<8|5
		if e.special == "block" {
			kind, perm, dev = 'b', 0o660, 8<<8|1
		}
		must(t, mknod(p, kind, perm, dev))
	default:
		data := make([]byte, e.size)
		for j := range data {
			data[j] = byte(i*31 + j*7 + j>>8)
		}
		mode := e.mode
		if mode == 0 {
			mode = 0o644
		}
		must(t, os.WriteFile(p, data, mode))
		must(t, os.Chmod(p, mode))
	}
}

// must fails the test on err.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
