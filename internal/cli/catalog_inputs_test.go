package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestBuildInputs changes each kind of input a command line can name, in
// every position the makefs and ar parsers give it, and checks that the
// entry reading it, and only that one, is rebuilt.
func TestBuildInputs(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	boot := string(bytes.Repeat([]byte{0xeb}, 512))
	writeFiles(t, root, map[string]string{
		"go.mod": "module m\n",
		"fixtures/manifest": "" +
			"dir.img: makefs -t msdos -s 1440k -T 0 dir.img src\n" +
			"extra.img: makefs -t msdos -s 1440k -T 0 extra.img src more\n" +
			"spec.img: makefs -t msdos -s 1440k -T 0 -Fspec.mtree spec.img src\n" +
			"manifest.img: makefs -t msdos -s 1440k -T0 manifest.img tree.mtree\n" +
			"stamp.img: makefs -t msdos -s 1440k --metadata=host -Tstamp stamp.img src\n" +
			"number.img: makefs -t msdos -s 1440k --metadata=host -T 7 number.img src\n" +
			"boot.img: makefs -t msdos -s 1440k -T 0 -o fat_type=12,bootstrap=./boot.bin boot.img src\n" +
			"bootB.img: makefs -t msdos -s 1440k -T 0 -o B=./bootB.bin bootB.img src\n" +
			"eltorito.iso: makefs -t cd9660 -T 0 -o 'bootimage=i386;cd.bin,no-emul-boot' eltorito.iso src\n" +
			"generic.iso: makefs -t cd9660 -T 0 -o G=mbr.bin generic.iso src\n" +
			"owners.iso: makefs -t cd9660 -T 0 -o rockridge -N db -F owners.mtree owners.iso src\n" +
			"lib.a: ar rcs lib.a obj/one.o obj/two.o\n",
		"fixtures/src/a.txt":       "a\n",
		"fixtures/src/b.txt":       "b\n",
		"fixtures/more/c.txt":      "c\n",
		"fixtures/spec.mtree":      "#mtree\n./a.txt type=file mode=0600 contents=data/spec-a.txt\n",
		"fixtures/tree.mtree":      "#mtree\n/set uid=0 gid=0\n. type=dir mode=0755\nx.txt type=file mode=0644 contents=data/x.txt\n",
		"fixtures/data/spec-a.txt": "spec a\n",
		"fixtures/data/x.txt":      "x\n",
		"fixtures/stamp":           "",
		"fixtures/boot.bin":        boot,
		"fixtures/bootB.bin":       boot,
		"fixtures/cd.bin":          boot,
		"fixtures/db/passwd":       "build:x:1001:1001::/:/bin/sh\n",
		"fixtures/db/group":        "build:x:1001:\n",
		"fixtures/owners.mtree":    "#mtree\n/set uname=build gname=build\n. type=dir mode=0755\na.txt type=file mode=0644\nb.txt type=file mode=0644\n",
		"fixtures/mbr.bin":         boot,
		"fixtures/obj/one.o":       "one\n",
		"fixtures/obj/two.o":       "two\n",
	})
	fx := filepath.Join(root, "fixtures")
	past := time.Unix(1700000000, 0)
	filepath.Walk(fx, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			os.Chtimes(p, past, past)
		}
		return nil
	})
	run := buildRunner(t)
	build := func(args ...string) (string, string) {
		t.Helper()
		code, stdout, stderr := run(root, append([]string{"build", "-update", "-j", "4"}, args...)...)
		if code != 0 {
			t.Fatalf("build -update %q: exit %d\n%s%s", args, code, stdout, stderr)
		}
		return stdout, stderr
	}
	build()
	if out, _ := build(); !strings.HasPrefix(out, "build: 0 built, 12 up to date") {
		t.Fatalf("second build:\n%s", out)
	}
	later := past.Add(time.Hour)
	touch := func(name string) func() {
		return func() { os.Chtimes(filepath.Join(fx, name), later, later); later = later.Add(time.Second) }
	}
	for _, tc := range []struct {
		what   string
		change func()
		want   string // the entry rebuilt
		args   []string
	}{
		{"a file of a source directory", touch("src/a.txt"), "", nil}, // several entries read src
		{"a file of an extra directory", touch("more/c.txt"), "extra.img", nil},
		{"an attached -F spec", touch("spec.mtree"), "spec.img", nil},
		{"a file a -F spec's contents keyword names", touch("data/spec-a.txt"), "spec.img", nil},
		{"an mtree manifest source", touch("tree.mtree"), "manifest.img", nil},
		{"a file a manifest's contents keyword names", touch("data/x.txt"), "manifest.img", nil},
		{"an attached -T file", touch("stamp"), "stamp.img", nil},
		{"an attached -T file, with -hash", touch("stamp"), "stamp.img", []string{"-hash"}},
		{"a file named as -T's number, created", func() { writeFiles(t, fx, map[string]string{"7": ""}) }, "number.img", nil},
		{"-o bootstrap=./file", touch("boot.bin"), "boot.img", nil},
		{"-o B=./file", touch("bootB.bin"), "bootB.img", nil},
		{"-o bootimage=i386;file", touch("cd.bin"), "eltorito.iso", nil},
		{"-o G=file", touch("mbr.bin"), "generic.iso", nil},
		{"-N's passwd", touch("db/passwd"), "owners.iso", nil},
		{"-N's group", touch("db/group"), "owners.iso", nil},
		{"an ar member", touch("obj/two.o"), "lib.a", nil},
		{"a source file's mode", func() { os.Chmod(filepath.Join(fx, "more", "c.txt"), 0o600) }, "extra.img", nil},
		{"a source file's contents, with -hash", func() {
			writeFiles(t, fx, map[string]string{"more/c.txt": "C\n"})
			os.Chtimes(filepath.Join(fx, "more", "c.txt"), later, later)
		}, "extra.img", []string{"-hash"}},
		{"a member rewritten with the same size and its time set back", func() {
			if runtime.GOOS != "linux" {
				touch("obj/two.o")() // change times are read on Linux only
				return
			}
			p := filepath.Join(fx, "obj", "two.o")
			fi, _ := os.Stat(p)
			os.WriteFile(p, []byte("TWO\n"), 0o644)
			os.Chtimes(p, fi.ModTime(), fi.ModTime())
		}, "lib.a", nil},
		{"a hard link in a source directory", func() {
			p, q := filepath.Join(fx, "more", "c.txt"), filepath.Join(fx, "more", "d.txt")
			writeFiles(t, fx, map[string]string{"more/d.txt": "C\n"})
			os.Chmod(q, 0o600)
			os.Chtimes(p, later, later)
			os.Chtimes(q, later, later)
			build("-hash")
			os.Remove(q)
			if err := os.Link(p, q); err != nil {
				t.Skipf("no hard links: %v", err)
			}
			os.Chtimes(filepath.Join(fx, "more"), later, later)
		}, "extra.img", []string{"-hash"}},
	} {
		if tc.args == nil {
			build() // settle
		} else {
			build(tc.args...)
		}
		tc.change()
		out, _ := build(tc.args...)
		rebuilt := map[string]bool{}
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) == 3 && strings.HasPrefix(f[2], "sha256:") {
				rebuilt[f[0]] = true
			}
		}
		switch {
		case tc.want == "" && len(rebuilt) == 0:
			t.Errorf("%s: nothing rebuilt:\n%s", tc.what, out)
		case tc.want != "" && (len(rebuilt) != 1 || !rebuilt[tc.want]):
			t.Errorf("%s: rebuilt %v, want %s:\n%s", tc.what, rebuilt, tc.want, out)
		}
	}
	if os.Getuid() == 0 {
		build()
		os.Lchown(filepath.Join(fx, "obj", "two.o"), 1, 1)
		if out, _ := build(); !strings.Contains(out, "lib.a ") {
			t.Errorf("a member's owner changed: not rebuilt:\n%s", out)
		}
	}
}

// TestBuildOrder builds a catalogue whose entries read each other's
// outputs, named as inputs, at -j 1 and -j 16: the outputs are the same,
// and each archive holds the complete output of the entry it reads, not a
// temporary file.
func TestBuildOrder(t *testing.T) {
	t.Parallel()
	var sums []string
	for _, j := range []string{"1", "16"} {
		root := t.TempDir()
		files := map[string]string{
			"go.mod": "module m\n",
			// all.a holds inner.img and deep/lib.a, both built by
			// entries listed after it.
			"fixtures/manifest": "all.a: ar rcs all.a tree/inner.img tree/deep/lib.a\n" +
				"tree/inner.img: makefs -t msdos -s 1440k -T 0 tree/inner.img src\n" +
				"tree/deep/lib.a: ar rcs tree/deep/lib.a src/f00.txt src/f01.txt\n",
			"fixtures/tree/deep/.keep": "",
		}
		for i := 0; i < 40; i++ {
			files[fmt.Sprintf("fixtures/src/f%02d.txt", i)] = strings.Repeat("x", 1000*i)
		}
		writeFiles(t, root, files)
		run := buildRunner(t)
		if code, _, stderr := run(root, "build", "-q", "-j", j); code != 0 {
			t.Fatalf("-j %s: %s", j, stderr)
		}
		b, _ := os.ReadFile(filepath.Join(root, "fixtures", sumName))
		sums = append(sums, string(b))
		code, stdout, stderr := run(root, "ls", filepath.Join(root, "fixtures", "all.a"))
		if code != 0 || !strings.Contains(stdout, " inner.img\n") || !strings.Contains(stdout, " lib.a\n") || strings.Contains(stdout, "tmp") {
			t.Errorf("-j %s: all.a holds:\n%s%s", j, stdout, stderr)
		}
	}
	if sums[0] != sums[1] {
		t.Errorf("sums differ by -j:\n%s\n%s", sums[0], sums[1])
	}
}
