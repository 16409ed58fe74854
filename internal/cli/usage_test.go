package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// packagePrefix matches what an error of a library package starts with
// when it reaches the user unworded: "bcache: ", "imgfmt: ", "describe: ",
// "ffs: bad option: ". The commands' own prefixes (makefs, ar, ranlib...) are not
// among them.
var packagePrefix = regexp.MustCompile(`\b(bcache|imgfmt|describe|fstree|inspect|catalog|msdos|ffs|cd9660): `)

// TestCommandLineErrors runs many bad command lines of every command and
// checks what README's "The command line" promises: a command line that
// cannot be parsed exits with status 2, one line naming what is wrong and
// then the command's usage; an error found only when running (a missing
// file, a file that is no image) exits with status 1 and one line. No
// error shows a stack trace or a library package's prefix.
func TestCommandLineErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "junk"), []byte("junk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const (
		usage   = 2 // a usage error: exit 2, the usage follows
		running = 1 // an error found when running: exit 1, one line
		trouble = 3 // diff's trouble: exit 2, one line, as cmp(1)
	)
	for _, tc := range []struct {
		args string
		kind int
		line string // a regular expression for the first line of stderr
	}{
		// makefs: a wrong -t lists the types; an unknown -o key lists the
		// type's keys, for every type; other bad flags name the flag.
		{"makefs -t msdoz x.img src", usage, `^fixturegen: makefs: unknown file system type "msdoz" \(types: cd9660, ffs, msdos\)$`},
		{"makefs -t msdoz -o help", usage, `^fixturegen: makefs: unknown file system type "msdoz" \(types: cd9660, ffs, msdos\)$`},
		{"makefs -t msdos -o bogus x.img src", usage, `^fixturegen: makefs: -o bogus: unknown option "bogus" for -t msdos \(keys: OEM_string, align, .*, volume_label; -o help describes them\)$`},
		{"makefs -t ffs -o bogus x.img src", usage, `^fixturegen: makefs: -o bogus: unknown option "bogus" for -t ffs \(keys: version, bsize, .*, compat; -o help describes them\)$`},
		{"makefs -t cd9660 -o bogus=1 x.img src", usage, `^fixturegen: makefs: -o bogus=1: unknown option "bogus" for -t cd9660 \(keys: allow-deep-trees, .*, rockridge, .*, volumeid; -o help describes them\)$`},
		{"makefs -o bogus x.img src", usage, `^fixturegen: makefs: -o bogus: unknown option "bogus" for -t ffs \(keys: version, `},
		{"makefs -t ffs -o bsize=1 x.img src", usage, `^fixturegen: makefs: -o bsize=1: bsize="1": want a number from 4096 to 65536$`},
		{"makefs -t msdos -o F=11 x.img src", usage, `^fixturegen: makefs: -o F=11: fat_type: "11": number out of range: 11 is not between 12 and 255$`},
		{"makefs -t cd9660 -o isolevel=4 x.img src", usage, `^fixturegen: makefs: -o isolevel=4: isolevel: "4": number out of range: 4 is not between 1 and 3$`},
		{"makefs -t msdos -o , x.img src", usage, `^fixturegen: makefs: -o ,: empty option$`},
		{"makefs -q x.img src", usage, `^fixturegen: makefs: unknown option -q$`},
		{"makefs -o", usage, `^fixturegen: makefs: option -o requires an argument$`},
		{"makefs x.img", usage, `^fixturegen: makefs: missing image-file or directory$`},
		{"makefs -s 1z x.img src", usage, `^fixturegen: makefs: -s 1z: invalid size: `},
		{"makefs -B middle x.img src", usage, `^fixturegen: makefs: -B middle: invalid byte order `},
		{"makefs -x x.img src", usage, `^fixturegen: makefs: -x requires -F mtree-specfile$`},
		{"makefs -T soon x.img src", usage, `^fixturegen: makefs: -T soon: "soon" is neither an existing file nor a number of seconds since the epoch$`},
		{"makefs x.img nosuch", running, `^fixturegen: makefs: cannot stat "nosuch": no such file or directory$`},
		{"makefs x.img junk/x", running, `^fixturegen: makefs: cannot stat "junk/x": not a directory$`},

		// ar and ranlib: every error in the key, the long options and the
		// operands is a usage error.
		{"ar rcz x.a junk", usage, `^fixturegen: ar: unknown operation or modifier 'z' in "rcz"$`},
		{"ar", usage, `^fixturegen: ar: missing operation$`},
		{"ar -", usage, `^fixturegen: ar: missing operation$`},
		{"ar z x.a", usage, `^fixturegen: ar: unknown operation or modifier 'z' in "z"$`},
		{"ar N x.a", usage, `^fixturegen: ar: no operation in "N": `},
		{"ar rt x.a", usage, `^fixturegen: ar: two different operations given: r and t$`},
		{"ar rl x.a", usage, `^fixturegen: ar: modifier l is not supported$`},
		{"ar rcN x x.a", usage, `^fixturegen: ar: N: bad count "x"$`},
		{"ar r", usage, `^fixturegen: ar: missing archive$`},
		{"ar ra x.a", usage, `^fixturegen: ar: missing archive$`},
		{"ar --bogus rc x.a", usage, `^fixturegen: ar: unknown option --bogus$`},
		{"ar --format=x rc x.a", usage, `^fixturegen: ar: --format=x: unknown format; use gnu or bsd$`},
		{"ar rc x.a --format", usage, `^fixturegen: ar: --format needs a value: gnu or bsd$`},
		{"ar --compat=x rc x.a", usage, `^fixturegen: ar: --compat=x: unknown; use gnu or llvm$`},
		{"ar t nosuch.a", running, `^fixturegen: ar: nosuch.a: no such file or directory$`},
		{"ar t junk", running, `^fixturegen: ar: junk: not an archive: `},
		{"ranlib", usage, `^fixturegen: ranlib: missing archive$`},
		{"ranlib -z x.a", usage, `^fixturegen: ranlib: unknown option -z$`},
		{"ranlib nosuch.a", running, `^fixturegen: ranlib: nosuch.a: no such file or directory$`},
		{"ranlib junk", running, `^fixturegen: ranlib: junk: not an archive: `},

		// build and verify: flags; a missing catalogue is found when running.
		{"build -z", usage, `^fixturegen: build: flag provided but not defined: -z$`},
		{"build -j 0", usage, `^fixturegen: build: -j 0: want at least 1$`},
		{"build -j x", usage, `^fixturegen: build: invalid value "x" for flag -j: `},
		{"build -C", usage, `^fixturegen: build: flag needs an argument: -C$`},
		{"build -clean -update", usage, `^fixturegen: build: -clean does not go with -update, -force or -hash$`},
		{"build -q -h", usage, `^fixturegen: build: help requested: run 'fixturegen help build' for the options$`},
		{"build -C nosuch", running, `^fixturegen: build: -C /.*/nosuch: no manifest there$`},
		{"verify -z", usage, `^fixturegen: verify: flag provided but not defined: -z$`},
		{"verify -j 0", usage, `^fixturegen: verify: -j 0: want at least 1$`},
		{"verify -update", usage, `^fixturegen: verify: flag provided but not defined: -update$`},
		{"verify -C nosuch", running, `^fixturegen: verify: -C /.*/nosuch: no manifest there$`},

		// ls, cat, diff: operands; files that are missing or in no known
		// format are found when running.
		{"ls", usage, `^fixturegen: ls: `},
		{"ls junk a b", usage, `^fixturegen: ls: want one image and at most one path$`},
		{"ls junk ../x", running, `^fixturegen: ls: ../x: invalid path$`},
		{"ls nosuch.img", running, `^fixturegen: ls: nosuch.img: no such file or directory$`},
		{"ls junk", running, `^fixturegen: ls: junk: not an image or archive of a known format \(.*cd9660.*\)$`},
		{"cat", usage, `^fixturegen: cat: want an image and at least one path$`},
		{"cat junk", usage, `^fixturegen: cat: want an image and at least one path$`},
		{"cat nosuch.img a", running, `^fixturegen: cat: nosuch.img: no such file or directory$`},
		{"cat junk a", running, `^fixturegen: cat: junk: not an image or archive of a known format `},
		{"diff", usage, `^fixturegen: diff: want two files$`},
		{"diff junk", usage, `^fixturegen: diff: want two files$`},
		{"diff -z junk junk", usage, `^fixturegen: diff: unknown option -z$`},
		{"diff nosuch junk", trouble, `^fixturegen: diff: nosuch: no such file or directory$`},

		// mkimg: its command line is a usage error; what the layout, the
		// files and the commands find is found when running.
		{"mkimg -s sun -p efi::1k", usage, `^fixturegen: mkimg: bad option: -s "sun": want one of apm, bsd, ebr, gpt, mbr, vtoc8$`},
		{"mkimg -s gpt -s mbr -p efi::1k", usage, `^fixturegen: mkimg: bad option: -s given twice: multiple schemes given$`},
		{"mkimg -s gpt -p efi::1k x", usage, `^fixturegen: mkimg: bad option: trailing arguments: "x"$`},
		{"mkimg -q", usage, `^fixturegen: mkimg: bad option: unknown option -q$`},
		{"mkimg -s gpt", usage, `^fixturegen: mkimg: bad option: no partitions \(-p\), and no capacity \(-c\) for an empty disk$`},
		{"mkimg -s gpt -f bogus -p efi::1k", usage, `^fixturegen: mkimg: bad option: -f "bogus": unknown format; want .*$`},
		{"mkimg -s gpt -p efi::1k:x", usage, `^fixturegen: mkimg: bad option: -p "efi::1k:x": offset: bad number "x"$`},
		{"mkimg -s gpt -p efi:=nosuch -o x.img", running, `^fixturegen: mkimg: bad partition: partition 1: .*nosuch: no such file or directory$`},
		{"mkimg -s gpt -p efi::1m:1m -p efi::1m:1m -o x.img", running, `^fixturegen: mkimg: bad partition: partition 1 \(sectors 2048 to 4095\) overlaps partition 2 \(sectors 2048 to 4095\)$`},
		{"mkimg -s gpt -C 1k -p efi::1m -o x.img", running, `^fixturegen: mkimg: past the capacity: partition 1 ends at sector 2082, past the capacity of 2 sectors of 512 bytes$`},
		{"mkimg -s gpt -p efi:-false -o x.img", running, `^fixturegen: mkimg: bad partition: partition 1: command "false" failed: exit status 1$`},
		{"mkimg -s mbr -p 0xa5::1k -o x.img", running, `^fixturegen: mkimg: bad partition: partition 1: type "0xa5" is not a mbr type \(mbr types: ebr, efi, fat16b, fat32, freebsd, ntfs, prepboot, linux-data, linux-swap, linux-lvm, linux-raid, xbootldr\)$`},
		{"mkimg -s mbr -p linux-root-x86-64::1k -o x.img", running, `^fixturegen: mkimg: bad partition: partition 1: type "linux-root-x86-64" is a gpt type, not a mbr one \(mbr types: .*, linux-data, linux-swap, linux-lvm, linux-raid, xbootldr\)$`},

		// version, help and the command itself.
		{"version x", usage, `^fixturegen: version: takes no arguments$`},
		{"help a b", usage, `^fixturegen: help: too many arguments$`},
		{"help nosuch", usage, `^fixturegen: help: unknown command "nosuch"; run 'fixturegen help' for the list$`},
		{"nosuch", usage, `^fixturegen: unknown command "nosuch"$`},
		{"-z", usage, `^fixturegen: unknown option -z$`},
	} {
		args := strings.Fields(tc.args)
		var stdout, stderr bytes.Buffer
		e := &env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Dir: dir, Getenv: func(string) string { return "" }}
		code := runMain(e, args)
		lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
		wantCode, wantLines := tc.kind, 1
		switch tc.kind {
		case usage:
			wantLines = 2
			if _, ok := commands[args[0]]; !ok {
				wantLines = 3 // the program's usage, and where the commands are listed
			}
		case trouble:
			wantCode = 2
		}
		if code != wantCode || len(lines) != wantLines || !regexp.MustCompile(tc.line).MatchString(lines[0]) {
			t.Errorf("fixturegen %s: exit %d, stderr\n%s\nwant exit %d, %d lines, the first matching %s", tc.args, code, stderr.String(), wantCode, wantLines, tc.line)
			continue
		}
		if tc.kind == usage {
			name := args[0]
			want := "usage: fixturegen <command> [arguments]"
			if c, ok := commands[name]; ok {
				want = "usage: fixturegen " + c.Usage
			}
			if lines[1] != want {
				t.Errorf("fixturegen %s: second line %q, want the usage %q", tc.args, lines[1], want)
			}
		}
		if m := packagePrefix.FindString(lines[0]); m != "" || strings.Contains(stderr.String(), "goroutine ") {
			t.Errorf("fixturegen %s: stderr shows a package prefix %q or a stack trace:\n%s", tc.args, m, stderr.String())
		}
		if stdout.Len() != 0 {
			t.Errorf("fixturegen %s: wrote to standard output: %q", tc.args, stdout.String())
		}
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 2 {
		t.Errorf("the bad command lines left files in %s: %v, %v", dir, entries, err)
	}
}

// TestEnvironmentErrors checks that a bad SOURCE_DATE_EPOCH or
// FIXTUREGEN_CACHE, found when makefs runs, is one line that names the
// variable without a library package's prefix, and exit status 1.
func TestEnvironmentErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key, value, want string
	}{
		{"SOURCE_DATE_EPOCH", "soon", `fixturegen: makefs: SOURCE_DATE_EPOCH="soon" is not a non-negative decimal number of seconds` + "\n"},
		{"FIXTUREGEN_CACHE", "bogus", `fixturegen: makefs: FIXTUREGEN_CACHE: unknown cache mode: "bogus" (want auto, mmap or copy, and clone or noclone)` + "\n"},
	} {
		var stdout, stderr bytes.Buffer
		getenv := func(k string) string {
			if k == tc.key {
				return tc.value
			}
			return ""
		}
		e := &env{Stdout: &stdout, Stderr: &stderr, Dir: dir, Getenv: getenv}
		if code := runMain(e, []string{"makefs", "-t", "msdos", "x.img", "src"}); code != 1 || stderr.String() != tc.want {
			t.Errorf("%s=%s: exit %d, stderr %q; want exit 1, stderr %q", tc.key, tc.value, code, stderr.String(), tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.img")); err == nil {
		t.Errorf("a bad environment left an image")
	}
}
