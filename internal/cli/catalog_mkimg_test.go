package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// mkimgManifest lists its disks before the entries that make their
// partitions, so that only the dependency order can build them right.
const mkimgManifest = "" +
	"disk.img: mkimg -s gpt -p efi/ESP:=esp.img -p freebsd-ufs:=root.img -p freebsd-boot:=part.bin -o disk.img\n" +
	"mbr.img: mkimg -s mbr -b boot.bin -p fat16b:=esp.img -p - -p freebsd::64k -o mbr.img\n" +
	"y.img: mkimg -y -s gpt -p efi:=esp.img -o y.img\n" +
	"esp.img: makefs -t msdos -s 1440k -T 0 esp.img src\n" +
	"root.img: makefs -t ffs -s 1m -T 0 root.img src\n"

// writeMkimgCatalog writes a catalogue of mkimgManifest's entries under a
// new temporary module root, with every file's time in the past, and
// returns the root.
func writeMkimgCatalog(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod":             "module m\n",
		"fixtures/manifest":  mkimgManifest,
		"fixtures/src/a.txt": "a\n",
		"fixtures/part.bin":  strings.Repeat("p", 4096),
		"fixtures/boot.bin":  strings.Repeat("\xeb", 446),
	})
	past := time.Unix(1700000000, 0)
	filepath.Walk(filepath.Join(root, "fixtures"), func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			os.Chtimes(p, past, past)
		}
		return nil
	})
	return root
}

// rebuiltOutputs returns the names of the outputs a build's standard
// output lists as built.
func rebuiltOutputs(out string) map[string]bool {
	rebuilt := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) == 3 && strings.HasPrefix(f[2], "sha256:") {
			rebuilt[f[0]] = true
		}
	}
	return rebuilt
}

// TestCatalogMkimgOrder builds disks (GPT and MBR, with and without -y)
// whose partitions are other entries' outputs, listed after them, at -j 1
// and -j 16: the sums are the same, and each disk has the bytes of the
// same mkimg command run by hand on the finished partitions, not on
// temporary files.
func TestCatalogMkimgOrder(t *testing.T) {
	t.Parallel()
	run := buildRunner(t)
	var sums []string
	for _, j := range []string{"1", "16"} {
		root := writeMkimgCatalog(t)
		fx := filepath.Join(root, "fixtures")
		if code, stdout, stderr := run(root, "build", "-j", j); code != 0 {
			t.Fatalf("-j %s: exit %d\n%s%s", j, code, stdout, stderr)
		}
		b, _ := os.ReadFile(filepath.Join(fx, sumName))
		sums = append(sums, string(b))
		for _, line := range strings.Split(strings.TrimSuffix(mkimgManifest, "\n"), "\n") {
			name, cmd, _ := strings.Cut(line, ": ")
			args := strings.Fields(cmd)
			if args[0] != "mkimg" {
				continue
			}
			args[len(args)-1] = "by-hand.img"
			if code, _, stderr := run(fx, args...); code != 0 {
				t.Fatalf("%s by hand: %s", cmd, stderr)
			}
			got, _ := os.ReadFile(filepath.Join(fx, name))
			want, _ := os.ReadFile(filepath.Join(fx, "by-hand.img"))
			if len(want) == 0 || !bytes.Equal(got, want) {
				t.Errorf("-j %s: %s (%d bytes) is not what %s gives (%d bytes)", j, name, len(got), cmd, len(want))
			}
		}
	}
	if sums[0] != sums[1] {
		t.Errorf("sums differ by -j:\n%s\n%s", sums[0], sums[1])
	}
}

// TestCatalogMkimgInputs changes each file an mkimg entry reads and checks
// that the disks reading it, and only they, are rebuilt: a committed
// partition file and the boot code rewritten with their size and time set
// back, and a source of the entry that makes a partition.
func TestCatalogMkimgInputs(t *testing.T) {
	t.Parallel()
	root := writeMkimgCatalog(t)
	fx := filepath.Join(root, "fixtures")
	run := buildRunner(t)
	build := func() string {
		t.Helper()
		code, stdout, stderr := run(root, "build", "-update", "-j", "4")
		if code != 0 {
			t.Fatalf("build -update: exit %d\n%s%s", code, stdout, stderr)
		}
		return stdout
	}
	build()
	if out := build(); !strings.HasPrefix(out, "build: 0 built, 5 up to date") {
		t.Fatalf("second build:\n%s", out)
	}
	later := time.Unix(1800000000, 0)
	// rewrite gives name new contents of the same size, and sets its
	// modification time back where change times tell the edit (Linux).
	rewrite := func(name string) func() {
		return func() {
			p := filepath.Join(fx, name)
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(p)
			b[0] ^= 0xff
			os.WriteFile(p, b, 0o644)
			if runtime.GOOS == "linux" {
				os.Chtimes(p, fi.ModTime(), fi.ModTime())
			} else {
				os.Chtimes(p, later, later)
			}
		}
	}
	for _, tc := range []struct {
		what   string
		change func()
		want   []string
	}{
		{"a TYPE:=FILE partition, its time set back", rewrite("part.bin"), []string{"disk.img"}},
		{"-b's boot code, its time set back", rewrite("boot.bin"), []string{"mbr.img"}},
		{"a source of a partition's entry", func() {
			writeFiles(t, fx, map[string]string{"src/a.txt": "A\n"})
			os.Chtimes(filepath.Join(fx, "src", "a.txt"), later, later)
		}, []string{"disk.img", "esp.img", "mbr.img", "root.img", "y.img"}},
	} {
		build() // settle
		tc.change()
		got := rebuiltOutputs(build())
		if len(got) != len(tc.want) {
			t.Errorf("%s: rebuilt %v, want %v", tc.what, got, tc.want)
			continue
		}
		for _, n := range tc.want {
			if !got[n] {
				t.Errorf("%s: rebuilt %v, want %v", tc.what, got, tc.want)
			}
		}
	}
}

// TestCatalogMkimgRefused checks the mkimg lines a catalogue refuses, each
// with one error line naming the manifest line, while the other entries
// build.
func TestCatalogMkimgRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line, want string
	}{
		{`cmd.img: mkimg -s gpt -p 'efi:-cat part.bin' -o cmd.img`, "manifest:2: cmd.img: mkimg -p 'efi:-cat part.bin': a partition made by a command cannot be in a catalogue"},
		{`cmd.img: mkimg -s gpt -pefi/x:-true -o cmd.img`, "manifest:2: cmd.img: mkimg -p efi/x:-true: a partition made by a command"},
		{`stdout.img: mkimg -s gpt -b stdout.img -p efi:=part.bin`, "manifest:2: stdout.img: mkimg without -o writes the disk to standard output"},
		{`self.img: mkimg -s gpt -p efi:=self.img -o self.img`, "manifest:2: self.img: mkimg: self.img is both the disk and a file it is made from"},
		{`bad.img: mkimg -s sun -p efi:=part.bin -o bad.img`, "manifest:2: bad.img: mkimg: "},
	} {
		root := t.TempDir()
		writeFiles(t, root, map[string]string{
			"go.mod":            "module m\n",
			"fixtures/manifest": "ok.img: mkimg -s gpt -p efi:=part.bin -o ok.img\n" + tc.line + "\n",
			"fixtures/part.bin": strings.Repeat("p", 512),
		})
		code, stdout, stderr := buildRunner(t)(root, "build", "-update")
		var errs []string
		for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
			if strings.Contains(l, "manifest:2:") {
				errs = append(errs, l)
			}
		}
		if code == 0 || len(errs) != 1 || !strings.Contains(errs[0], tc.want) || !strings.Contains(stdout, "ok.img ") {
			t.Errorf("%s: exit %d, errors %q, want one with %q\n%s", tc.line, code, errs, tc.want, stdout)
		}
	}
}

// TestMkimgOptions checks how mkimgOptions splits a command line, which
// gives the output's argument and the command partitions.
func TestMkimgOptions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		out  int
		cmd  string
	}{
		{[]string{"-s", "gpt", "-p", "efi:=a", "-o", "d.img"}, 5, ""},
		{[]string{"-y", "-o", "d.img", "-sgpt"}, 2, ""},
		{[]string{"-od.img", "-s", "gpt"}, -1, ""},
		{[]string{"-b", "-o", "-o", "d.img"}, 3, ""},
		{[]string{"--capacity", "-o", "-o", "x", "-p", "efi:-echo"}, 3, "efi:-echo"},
		{[]string{"--capacity=1m", "-o", "x", "-pfreebsd:-"}, 2, "freebsd:-"},
		{[]string{"-p", "-", "-p", "efi::1m", "-o", "x"}, 5, ""},
		{[]string{"-o", "x", "-p"}, 1, ""},
	} {
		if got := mkimgOutputArg(tc.args); got != tc.out {
			t.Errorf("mkimgOutputArg(%q) = %d, want %d", tc.args, got, tc.out)
		}
		if got := mkimgCommandPartition(tc.args); got != tc.cmd {
			t.Errorf("mkimgCommandPartition(%q) = %q, want %q", tc.args, got, tc.cmd)
		}
	}
}

// checkCatalogDisk checks the disk out that the catalogue in dir built
// from the mkimg arguments args: sgdisk verifies a GPT, sfdisk reads an
// MBR's partitions, and freebsd-mkimg run on the same arguments in dir
// gives the same bytes (with -y for a GPT, whose GUIDs FreeBSD's mkimg
// draws at random, compared with fixturegen mkimg -y's).
func checkCatalogDisk(t *testing.T, dir string, args []string, out string) {
	o, err := parseMkimgArgs(&env{Dir: dir}, args)
	if err != nil {
		t.Fatal(err)
	}
	switch o.Scheme {
	case "gpt":
		tooltest.Need(t, "sgdisk")
		b, err := exec.Command("sgdisk", "-v", out).CombinedOutput()
		if err != nil || !strings.Contains(string(b), "No problems found") {
			t.Errorf("sgdisk -v %s: %v\n%s", out, err, b)
		}
	case "mbr":
		tooltest.Need(t, "sfdisk")
		b, err := exec.Command("sfdisk", "-d", out).CombinedOutput()
		if err != nil || !strings.Contains(string(b), "label: dos") {
			t.Errorf("sfdisk -d %s: %v\n%s", out, err, b)
		}
	}
	tooltest.Need(t, "freebsd-mkimg")
	tmp := t.TempDir()
	ours, theirs := out, filepath.Join(tmp, "freebsd.img")
	refArgs := slices.Clone(args)
	refArgs[mkimgOutputArg(args)] = theirs
	if o.Scheme == "gpt" {
		refArgs = append([]string{"-y"}, refArgs...)
		ours = filepath.Join(tmp, "fixturegen.img")
		byHand := slices.Clone(refArgs)
		byHand[mkimgOutputArg(byHand)] = ours
		var stderr bytes.Buffer
		if code := runMain(&env{Stdout: &bytes.Buffer{}, Stderr: &stderr, Dir: dir, Getenv: func(string) string { return "" }}, append([]string{"mkimg"}, byHand...)); code != 0 {
			t.Fatalf("fixturegen mkimg %q: %s", byHand, stderr.String())
		}
	}
	cmd := exec.Command("freebsd-mkimg", refArgs...)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("freebsd-mkimg %q: %v\n%s", refArgs, err, b)
	}
	a, _ := os.ReadFile(ours)
	b, _ := os.ReadFile(theirs)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("%s: not the bytes of freebsd-mkimg %q (%d and %d bytes)", out, refArgs, len(a), len(b))
	}
}
