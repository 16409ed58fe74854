package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/catalog"
	"github.com/fixturegen/fixturegen/imgkit/progress"
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
		{`v.img: mkimg -s gpt --version -o v.img`, "manifest:2: v.img: mkimg --version: the line asks for information and writes no disk; a catalogue entry must write its disk with -o"},
		{`h.img: mkimg -h -o h.img`, "manifest:2: h.img: mkimg -h: the line asks for information"},
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

// TestPlanMkimgArgs checks which argument the plan of an mkimg line says
// is the output, and the command partitions it refuses, as mkimg.Parse
// reads the line: grouped letters, abbreviated long options, an option
// value that looks like an option, and -h, which takes no value.
func TestPlanMkimgArgs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		out  int
		err  string
	}{
		{[]string{"-s", "gpt", "-p", "efi::1k", "-o", "d.img"}, 6, ""},
		{[]string{"-y", "-o", "d.img", "-sgpt"}, 3, ""},
		{[]string{"-yo", "d.img", "-s", "gpt"}, 2, ""},
		{[]string{"--cap", "1m", "-o", "d.img"}, 4, ""},
		{[]string{"-b", "-o", "-o", "d.img"}, 4, ""},
		{[]string{"--capacity", "1m", "-o", "d.img", "-p", "efi:-echo"}, 0, "mkimg -p efi:-echo: a partition made by a command"},
		{[]string{"--capacity=1m", "-o", "d.img", "-pfreebsd/x:-cat a b"}, 0, "mkimg -p 'freebsd/x:-cat a b': a partition made by a command"},
		{[]string{"-od.img", "-s", "gpt"}, 0, "mkimg -od.img: give -o and the disk's name as two arguments"},
		{[]string{"-h", "-o", "d.img"}, 0, "mkimg -h: the line asks for information and writes no disk"},
		{[]string{"-s", "gpt", "--vers", "-o", "d.img"}, 0, "mkimg --version: the line asks for information"},
		{[]string{"--formats"}, 0, "mkimg --formats: "},
		{[]string{"--schemes", "-o", "d.img"}, 0, "mkimg --schemes: "},
	} {
		p, err := Runner().Plan(dir, append([]string{"mkimg"}, tc.args...))
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Plan(%q): error %v, want one with %q", tc.args, err, tc.err)
			}
		case err != nil:
			t.Errorf("Plan(%q): %v", tc.args, err)
		case p.Output != tc.out:
			t.Errorf("Plan(%q).Output = %d, want %d", tc.args, p.Output, tc.out)
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
	refArgs[o.OutputArg] = theirs
	if o.Scheme == "gpt" {
		refArgs = append([]string{"-y"}, refArgs...)
		ours = filepath.Join(tmp, "fixturegen.img")
		byHand := slices.Clone(refArgs)
		byHand[o.OutputArg+1] = ours
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

// TestCatalogMkimgOffsetName builds an entry whose partition is
// root.img:1m: while no file has that whole name, the plan reads root.img
// (another entry's output, built first) at offset 1m and tracks
// root.img:1m as an optional input, looked for in the catalogue folder
// rather than the process's; once a file of the whole name appears there,
// the disk is rebuilt from that file, and then is up to date.
func TestCatalogMkimgOffsetName(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("a colon names a stream of the file before it")
	}
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod": "module m\n",
		"fixtures/manifest": "disk.img: mkimg -s gpt -p freebsd-ufs:=root.img:1m -o disk.img\n" +
			"root.img: makefs -t ffs -s 1m -T 0 root.img src\n",
		"fixtures/src/a.txt": "a\n",
	})
	fx := filepath.Join(root, "fixtures")
	run := buildRunner(t)
	args := []string{"mkimg", "-s", "gpt", "-p", "freebsd-ufs:=root.img:1m", "-o", "disk.img"}
	inputs := func() string {
		t.Helper()
		p, err := Runner().Plan(fx, args)
		if err != nil {
			t.Fatal(err)
		}
		var in []string
		for _, i := range p.Inputs {
			w, _ := filepath.Rel(fx, i.Path)
			if i.Optional {
				w += " (optional)"
			}
			in = append(in, w)
		}
		return strings.Join(in, ", ")
	}
	// build builds the catalogue and checks that disk.img is what mkimg
	// run by hand in the folder makes; it returns the build's output.
	build := func() string {
		t.Helper()
		code, stdout, stderr := run(root, "build", "-update")
		if code != 0 {
			t.Fatalf("build -update: exit %d\n%s%s", code, stdout, stderr)
		}
		byHand := slices.Clone(args)
		byHand[len(byHand)-1] = "../by-hand.img"
		if code, _, stderr := run(fx, byHand...); code != 0 {
			t.Fatalf("%q by hand: %s", byHand, stderr)
		}
		got, _ := os.ReadFile(filepath.Join(fx, "disk.img"))
		want, _ := os.ReadFile(filepath.Join(root, "by-hand.img"))
		if len(want) == 0 || !bytes.Equal(got, want) {
			t.Errorf("disk.img (%d bytes) is not what %q gives (%d bytes)", len(got), byHand, len(want))
		}
		return stdout
	}
	if out := build(); !strings.HasPrefix(lastLine(out), "build: 2 built") {
		t.Errorf("first build:\n%s", out)
	}
	if got, want := inputs(), "root.img, root.img:1m (optional)"; got != want {
		t.Errorf("inputs before root.img:1m exists: %s, want %s", got, want)
	}
	first, _ := os.ReadFile(filepath.Join(fx, "disk.img"))
	if len(first) < 2<<20 {
		t.Errorf("disk of %d bytes: the 1m offset is not in it", len(first))
	}
	writeFiles(t, fx, map[string]string{"root.img:1m": strings.Repeat("R", 4096)})
	if got, want := inputs(), "root.img:1m"; got != want {
		t.Errorf("inputs once root.img:1m exists: %s, want %s", got, want)
	}
	if got := rebuiltOutputs(build()); len(got) != 1 || !got["disk.img"] {
		t.Errorf("after root.img:1m was created: rebuilt %v, want disk.img", got)
	}
	second, _ := os.ReadFile(filepath.Join(fx, "disk.img"))
	if len(second) >= len(first) || !bytes.Contains(second, []byte(strings.Repeat("R", 4096))) {
		t.Errorf("disk of %d bytes after root.img:1m was created: not the 4096 bytes of that file without the offset", len(second))
	}
	if out := build(); !strings.HasPrefix(lastLine(out), "build: 0 built, 2 up to date") {
		t.Errorf("third build:\n%s", out)
	}
}

// TestRunnerMkimgProgress checks that the catalogue runner hands
// Command.Progress to mkimg: the count of a disk is at least its
// partition file's bytes and at most the disk's size.
func TestRunnerMkimgProgress(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"part.bin": strings.Repeat("progress", 40000)})
	var n progress.Meter
	var stderr bytes.Buffer
	args := []string{"mkimg", "-s", "gpt", "-p", "efi:=part.bin", "-o", "disk.img"}
	err := Runner().Run(context.Background(), &catalog.Command{Dir: dir, Args: args, Stdout: io.Discard, Stderr: &stderr, Progress: &n, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatalf("%s: %v", args, err)
	}
	fi, err := os.Stat(filepath.Join(dir, "disk.img"))
	if err != nil {
		t.Fatal(err)
	}
	if got := n.Count(); got < 320000 || got > fi.Size() {
		t.Errorf("%s: Progress = %d, want from the file's 320,000 bytes to the disk's %d", args, got, fi.Size())
	}
	if stderr.Len() != 0 {
		t.Errorf("%s: stderr %q", args, stderr.String())
	}
}
