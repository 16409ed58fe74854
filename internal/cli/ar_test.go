package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/ar"
	"github.com/fixturegen/fixturegen/imgkit/inspect"
	"github.com/fixturegen/fixturegen/internal/elfgen"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// arRun runs "fixturegen ar args..." in-process in dir.
func arRun(t *testing.T, dir string, vars map[string]string, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	e := &env{Stdout: &out, Stderr: &out, Dir: dir, Getenv: func(k string) string { return vars[k] }}
	err := run(e, args)
	return out.String(), err
}

// toolRun runs an external program in dir.
func toolRun(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "LC_ALL=C", "TZ=UTC"), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// crafted writes n small ELF objects with distinct symbols: obj%03d.o.
func crafted(t *testing.T, dir string, n int) []string {
	t.Helper()
	var names []string
	for i := 0; i < n; i++ {
		o := elfgen.Object{Is64: true, Text: []byte{0xc3}, Syms: []elfgen.Sym{
			{Name: fmt.Sprintf("func_%03d", i), Bind: elfgen.STB_GLOBAL, Type: elfgen.STT_FUNC, Shndx: elfgen.TextSection},
			{Name: fmt.Sprintf("data_%03d_with_a_longer_name", i), Bind: elfgen.STB_WEAK, Shndx: elfgen.TextSection},
		}}
		name := fmt.Sprintf("obj%03d.o", i)
		if i%7 == 0 {
			name = fmt.Sprintf("object_with_long_name_%03d.o", i)
		}
		if err := os.WriteFile(filepath.Join(dir, name), o.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	return names
}

// arFixtures compiles the shared inputs of the ar tests into dir.
func arFixtures(t *testing.T, dir string) {
	t.Helper()
	tooltest.Need(t, "cc")
	srcs := map[string]string{
		"a":                                 "int ga = 1; int common_c; __attribute__((weak)) int wk = 3; extern int ux; int fa(void){ return ga + ux; }\n",
		"b":                                 "int fb(void){ return 2; }\nint averyveryverylongsymbolname_b = 5;\n",
		"c":                                 "int c1 = 1;\n",
		"a_member_name_longer_than_fifteen": "int longmember(void){return 7;}\n",
		"big":                               "char big_array[16 << 20] = {1};\nint big_func(void){return big_array[5];}\n",
		"ux":                                "int ux = 40;\n",
		"main":                              "int fa(void); int fb(void); int longmember(void);\nint main(void){ return fa() + fb() + longmember() == 50 ? 0 : 1; }\n",
	}
	for n, s := range srcs {
		if err := os.WriteFile(filepath.Join(dir, n+".c"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"-c", "-fcommon"}
	for n := range srcs {
		args = append(args, n+".c")
	}
	toolRun(t, dir, nil, "cc", args...)
	os.WriteFile(filepath.Join(dir, "notobj.txt"), []byte("hello\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "odd.txt"), []byte("abc"), 0o644)
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "abcdefghijklm.o"), mustRead(t, filepath.Join(dir, "c.o")), 0o644)
	// new/c.o: a second c.o with other contents, to replace c.o with.
	os.MkdirAll(filepath.Join(dir, "new"), 0o755)
	o := elfgen.Object{Is64: true, Text: []byte{0xc3, 0xc3}, Syms: []elfgen.Sym{{Name: "c_replaced", Bind: elfgen.STB_GLOBAL, Shndx: elfgen.TextSection}}}
	os.WriteFile(filepath.Join(dir, "new", "c.o"), o.Bytes(), 0o644)
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// arScenario is a sequence of ar command lines; "%A" stands for the
// archive, which each tool gets its own copy of.
type arScenario struct {
	name  string
	steps [][]string
	bsd   bool // also compare with llvm-ar --format=bsd
	env   map[string]string
	// gnuOnly scenarios use what llvm-ar lacks (the f modifier) or gets
	// wrong (llvm-ar 14 d turns a thin archive into a regular one).
	gnuOnly bool
}

func arScenarios(many []string) []arScenario {
	few := []string{"a.o", "b.o", "c.o"}
	base := append([]string{"rcsD", "%A"}, "a.o", "b.o", "notobj.txt", "c.o", "odd.txt", "a_member_name_longer_than_fifteen.o")
	return []arScenario{
		{name: "few", steps: [][]string{append([]string{"rcsD", "%A"}, few...)}, bsd: true},
		{name: "longnames", steps: [][]string{{"rcsD", "%A", "a_member_name_longer_than_fifteen.o", "a.o", "sub/abcdefghijklm.o"}}, bsd: true},
		{name: "500objects", steps: [][]string{append([]string{"rcsD", "%A"}, many...)}, bsd: true},
		{name: "nonobject", steps: [][]string{{"rcsD", "%A", "notobj.txt", "a.o", "odd.txt"}}, bsd: true},
		{name: "16MiB", steps: [][]string{{"rcsD", "%A", "a.o", "big.o", "c.o"}}, bsd: true},
		{name: "replace", steps: [][]string{base, {"rsD", "%A", "new/c.o"}}, bsd: true},
		{name: "replace-after", steps: [][]string{base, {"rvaD", "a.o", "%A", "notobj.txt", "ux.o"}}},
		{name: "replace-before", steps: [][]string{base, {"rbD", "c.o", "%A", "ux.o", "odd.txt"}}},
		{name: "quick", steps: [][]string{base, {"qD", "%A", "c.o", "ux.o"}}, bsd: true},
		{name: "quick-noindex", steps: [][]string{{"qcSD", "%A", "a.o", "b.o"}}, bsd: true},
		{name: "delete", steps: [][]string{base, {"dD", "%A", "b.o", "odd.txt", "missing.o"}}, bsd: true},
		{name: "move", steps: [][]string{base, {"mD", "%A", "a.o", "notobj.txt"}}, bsd: true},
		{name: "move-after", steps: [][]string{base, {"maD", "b.o", "%A", "c.o", "a.o"}}},
		{name: "move-before", steps: [][]string{base, {"mbD", "b.o", "%A", "odd.txt", "a.o"}}},
		{name: "s-without-index", steps: [][]string{{"rcSD", "%A", "a.o", "b.o", "notobj.txt"}, {"sD", "%A"}}, bsd: true},
		{name: "S-drops-index", steps: [][]string{base, {"rSD", "%A", "c.o"}}},
		{name: "thin", steps: [][]string{{"rcsDT", "%A", "a.o", "sub/abcdefghijklm.o", "a_member_name_longer_than_fifteen.o", "notobj.txt"}}},
		{name: "thin-edit", gnuOnly: true, steps: [][]string{{"rcsDT", "%A", "a.o", "b.o", "c.o"}, {"dD", "%A", "b.o"}, {"rDT", "%A", "ux.o"}}},
		{name: "truncate", gnuOnly: true, steps: [][]string{{"rcfD", "%A", "a_member_name_longer_than_fifteen.o", "c.o"}}},
		{name: "sym64", env: map[string]string{"FIXTUREGEN_AR_SYM64_THRESHOLD": "1000"}, steps: [][]string{{"rcsD", "%A", "c.o", "a.o", "b.o"}}},
	}
}

// TestArMatchesGNUAndLLVM runs each scenario with fixturegen ar, GNU ar
// and llvm-ar and compares the archives byte for byte. With
// FIXTUREGEN_LONG=1 each scenario is compared with every tool (and
// llvm-ar's BSD format) it applies to; by default with one of them,
// taken in turn from scenario to scenario, so that each tool and format
// is still compared on several scenarios; with -short every third
// scenario. The scenarios run in parallel, each on archives of its own
// names in one directory.
func TestArMatchesGNUAndLLVM(t *testing.T) {
	t.Parallel()
	gnu := tooltest.Need(t, "ar")
	llvm := tooltest.Need(t, "llvm-ar")
	dir := t.TempDir()
	arFixtures(t, dir)
	many := crafted(t, dir, 500)
	for k, sc := range arScenarios(many) {
		if !tooltest.ShortSample(k, 3) {
			continue
		}
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			type variant struct {
				n     int // the variant's number, in its archives' names
				tool  string
				extra []string // fixturegen options for this comparison
				pre   []string // the tool's options
			}
			vs := []variant{{n: 0, tool: gnu}, {n: 1, tool: llvm, extra: []string{"--compat=llvm"}}}
			if sc.gnuOnly {
				vs = vs[:1]
			}
			if sc.bsd {
				vs = append(vs, variant{n: len(vs), tool: llvm, extra: []string{"--format=bsd"}, pre: []string{"--format=bsd"}})
			}
			if sc.env != nil && vs[0].tool == gnu {
				vs = vs[1:] // GNU ar has no threshold knob; see TestSym64GNU
			}
			for _, v := range tooltest.Pick(k, vs) {
				fg := filepath.Join(dir, fmt.Sprintf("fg-%s-%d.a", sc.name, v.n))
				ref := filepath.Join(dir, fmt.Sprintf("ref-%s-%d.a", sc.name, v.n))
				var toolEnv []string
				for k, val := range sc.env {
					if k == "FIXTUREGEN_AR_SYM64_THRESHOLD" {
						toolEnv = append(toolEnv, "SYM64_THRESHOLD="+val)
					}
				}
				for _, st := range sc.steps {
					fgArgs := []string{"ar"}
					fgArgs = append(fgArgs, v.extra...)
					var refArgs []string
					refArgs = append(refArgs, v.pre...)
					for _, a := range st {
						if a == "%A" {
							fgArgs = append(fgArgs, filepath.Base(fg))
							refArgs = append(refArgs, filepath.Base(ref))
						} else {
							fgArgs = append(fgArgs, a)
							refArgs = append(refArgs, a)
						}
					}
					if out, err := arRun(t, dir, sc.env, fgArgs...); err != nil {
						t.Fatalf("fixturegen %s: %v\n%s", strings.Join(fgArgs, " "), err, out)
					}
					toolRun(t, dir, toolEnv, v.tool, refArgs...)
				}
				got, want := mustRead(t, fg), mustRead(t, ref)
				what := filepath.Base(v.tool) + " " + strings.Join(v.pre, " ")
				if !bytes.Equal(got, want) {
					t.Errorf("%s: %s", what, firstDifference(got, want))
				}
			}
		})
	}
}

// firstDifference says how two archives differ, by structure (member,
// header field, index entry), as fixturegen diff says it.
func firstDifference(got, want []byte) string {
	rep, err := inspect.Diff(bytes.NewReader(got), int64(len(got)), bytes.NewReader(want), int64(len(want)))
	if err != nil {
		return fmt.Sprintf("got %d bytes, want %d; diff: %v", len(got), len(want), err)
	}
	var b strings.Builder
	rep.Write(&b, "got", "want")
	return b.String()
}

// TestArRealConsumers links a program against an archive fixturegen made
// without ranlib, lists it with nm --print-armap and GNU ar t, and checks
// that GNU ar x gives back every member unchanged.
func TestArRealConsumers(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "ar")
	tooltest.Need(t, "nm")
	dir := t.TempDir()
	arFixtures(t, dir)
	members := []string{"a.o", "b.o", "notobj.txt", "a_member_name_longer_than_fifteen.o", "ux.o", "odd.txt"}
	if out, err := arRun(t, dir, nil, append([]string{"ar", "rc", "libx.a"}, members...)...); err != nil {
		t.Fatalf("fixturegen ar rc: %v\n%s", err, out)
	}
	toolRun(t, dir, nil, "cc", "-o", "prog", "main.o", "-L.", "-lx")
	toolRun(t, dir, nil, "./prog")
	armap := toolRun(t, dir, nil, "nm", "--print-armap", "libx.a")
	for _, want := range []string{"fa in a.o", "ga in a.o", "common_c in a.o", "wk in a.o", "fb in b.o",
		"longmember in a_member_name_longer_than_fifteen.o", "ux in ux.o"} {
		if !strings.Contains(armap, want+"\n") {
			t.Errorf("nm --print-armap lacks %q:\n%s", want, armap)
		}
	}
	if got, want := toolRun(t, dir, nil, "ar", "t", "libx.a"), strings.Join(members, "\n")+"\n"; got != want {
		t.Errorf("ar t: got %q, want %q", got, want)
	}
	xdir := filepath.Join(dir, "x")
	os.Mkdir(xdir, 0o755)
	toolRun(t, xdir, nil, "ar", "x", "../libx.a")
	for _, m := range members {
		if !bytes.Equal(mustRead(t, filepath.Join(xdir, m)), mustRead(t, filepath.Join(dir, m))) {
			t.Errorf("ar x: %s differs from the original", m)
		}
	}
}

// TestArSym64GNU forces the GNU /SYM64/ index with a low threshold and
// checks that GNU nm reads it: the offsets and names are right and the
// table is padded to 8 bytes as GNU ar pads it.
func TestArSym64GNU(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, "nm")
	dir := t.TempDir()
	arFixtures(t, dir)
	vars := map[string]string{"FIXTUREGEN_AR_SYM64_THRESHOLD": "100"}
	if out, err := arRun(t, dir, vars, "ar", "rcs", "lib64.a", "c.o", "odd.txt", "a.o"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	b := mustRead(t, filepath.Join(dir, "lib64.a"))
	if string(b[8:15]) != "/SYM64/" {
		t.Fatalf("no /SYM64/ member: %q", b[8:24])
	}
	r, err := ar.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if r.Index() != ar.IndexGNU64 {
		t.Fatalf("index %v, want /SYM64/", r.Index())
	}
	if size := r.Members()[0].HeaderOffset - 8 - 60; size%8 != 0 {
		t.Errorf("/SYM64/ table of %d bytes, GNU ar pads it to 8", size)
	}
	armap := toolRun(t, dir, nil, "nm", "--print-armap", "lib64.a")
	for _, want := range []string{"c1 in c.o", "fa in a.o", "common_c in a.o"} {
		if !strings.Contains(armap, want+"\n") {
			t.Errorf("nm --print-armap lacks %q:\n%s", want, armap)
		}
	}
	toolRun(t, dir, nil, "cc", "-o", "prog", "main.o", "-L.", "-l64", "b.o", "a_member_name_longer_than_fifteen.o", "ux.o")
}

// TestArErrorsLeaveArchive checks that a failing edit leaves the archive
// exactly as it was, with a one-line error naming the file at fault.
func TestArErrorsLeaveArchive(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "one.txt"), []byte("one\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "two.txt"), []byte("two\n"), 0o644)
	if out, err := arRun(t, dir, nil, "ar", "rc", "lib.a", "one.txt"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	before := mustRead(t, filepath.Join(dir, "lib.a"))
	unreadable := filepath.Join(dir, "unreadable.txt")
	os.WriteFile(unreadable, []byte("x"), 0o000)
	os.Mkdir(filepath.Join(dir, "adir"), 0o755)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"ar", "r", "lib.a", "two.txt", "missing.o"}, "missing.o"},
		{[]string{"ar", "q", "lib.a", "adir"}, "adir"},
		{[]string{"ar", "m", "lib.a", "nothere.o"}, "nothere.o"},
		{[]string{"ar", "rz", "lib.a", "two.txt"}, "'z'"},
		{[]string{"ar", "rT", "lib.a", "two.txt"}, "lib.a"},
	}
	if os.Geteuid() != 0 { // root reads anything
		cases = append(cases, struct {
			args []string
			want string
		}{[]string{"ar", "r", "lib.a", "unreadable.txt"}, "unreadable.txt"})
	}
	for _, c := range cases {
		out, err := arRun(t, dir, nil, c.args...)
		if err == nil {
			t.Errorf("%s: no error\n%s", strings.Join(c.args, " "), out)
			continue
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") || !strings.Contains(msg, c.want) {
			t.Errorf("%s: error %q should be one line naming %s", strings.Join(c.args, " "), msg, c.want)
		}
		if got := mustRead(t, filepath.Join(dir, "lib.a")); !bytes.Equal(got, before) {
			t.Errorf("%s: archive changed", strings.Join(c.args, " "))
		}
	}
	// A corrupt archive is not rewritten.
	bad := append(append([]byte{}, before[:len(before)-3]...), "zz"...)
	os.WriteFile(filepath.Join(dir, "bad.a"), bad, 0o644)
	for _, op := range []string{"r", "d", "s", "t", "x"} {
		_, err := arRun(t, dir, nil, "ar", op, "bad.a", "two.txt")
		if err == nil || !strings.Contains(err.Error(), "bad.a") || !strings.Contains(err.Error(), "at byte 0x") {
			t.Errorf("ar %s bad.a: error %v should name bad.a and the offset", op, err)
		}
		if got := mustRead(t, filepath.Join(dir, "bad.a")); !bytes.Equal(got, bad) {
			t.Errorf("ar %s bad.a: archive changed", op)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// TestArThinBSD checks that a thin archive in the BSD layout is refused in
// the command's words, as llvm-ar refuses it, and that nothing is written.
func TestArThinBSD(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "one.txt"), []byte("one\n"), 0o644)
	for _, args := range [][]string{
		{"ar", "--format=bsd", "rcT", "thin.a", "one.txt"},
		{"ar", "--thin", "--format=bsd", "rc", "thin.a", "one.txt"},
	} {
		_, err := arRun(t, dir, nil, args...)
		if err == nil || err.Error() != "ar: thin.a: only the gnu format has a thin mode (T, --thin with --format=bsd)" {
			t.Errorf("%s: error %v", strings.Join(args, " "), err)
		}
		if _, err := os.Stat(filepath.Join(dir, "thin.a")); err == nil {
			t.Errorf("%s: thin.a written", strings.Join(args, " "))
		}
	}
}

// TestArUMatches checks U (real dates, ids and modes) against GNU ar and
// llvm-ar. The index is dated with the current time by all three, so its
// date field is masked.
func TestArUMatches(t *testing.T) {
	t.Parallel()
	gnu := tooltest.Need(t, "ar")
	llvm := tooltest.Need(t, "llvm-ar")
	dir := t.TempDir()
	arFixtures(t, dir)
	when := time.Unix(1700000000, 0)
	for _, f := range []string{"a.o", "b.o", "notobj.txt"} {
		os.Chtimes(filepath.Join(dir, f), when, when)
	}
	os.Chmod(filepath.Join(dir, "b.o"), 0o755)
	mask := func(b []byte) []byte {
		if len(b) > 8+28 && b[8] == '/' {
			copy(b[8+16:8+28], "XXXXXXXXXXXX")
		}
		return b
	}
	for _, v := range []struct {
		tool  string
		extra []string
	}{{gnu, nil}, {llvm, []string{"--compat=llvm"}}} {
		os.Remove(filepath.Join(dir, "u-fg.a"))
		os.Remove(filepath.Join(dir, "u-ref.a"))
		if out, err := arRun(t, dir, nil, append(append([]string{"ar"}, v.extra...), "rcsU", "u-fg.a", "a.o", "b.o", "notobj.txt")...); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		toolRun(t, dir, nil, v.tool, "rcsU", "u-ref.a", "a.o", "b.o", "notobj.txt")
		got, want := mask(mustRead(t, filepath.Join(dir, "u-fg.a"))), mask(mustRead(t, filepath.Join(dir, "u-ref.a")))
		if !bytes.Equal(got, want) {
			t.Errorf("%s rcsU: %s", filepath.Base(v.tool), firstDifference(got, want))
		}
	}
}

// TestArThinRead checks that ar p, ar x, ar t, cat and ls read a thin
// archive GNU ar wrote, whose members sit below, beside and outside the
// archive's directory: p prints what GNU ar p prints, x copies the members
// to their base names, t lists the members even when one is missing, and
// a missing or stale member is an error naming it.
func TestArThinRead(t *testing.T) {
	t.Parallel()
	gnu := tooltest.Need(t, "ar")
	root := t.TempDir()
	lib, obj := filepath.Join(root, "lib"), filepath.Join(root, "obj")
	for p, data := range map[string]string{
		filepath.Join(lib, "sub", "c.txt"): "see\n",
		filepath.Join(obj, "a.txt"):        "hello\n",
		filepath.Join(obj, "b.txt"):        "odd",
	} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	toolRun(t, lib, nil, gnu, "rcT", "t.a", "sub/c.txt", "../obj/a.txt", "../obj/b.txt")
	want := toolRun(t, lib, nil, gnu, "p", "t.a")
	if got, err := arRun(t, lib, nil, "ar", "p", "t.a"); err != nil || got != want {
		t.Errorf("ar p t.a = %q, %v; GNU ar p gives %q", got, err, want)
	}
	if got, err := arRun(t, lib, nil, "cat", "t.a", "sub/c.txt"); err != nil || got != "see\n" {
		t.Errorf("cat t.a sub/c.txt = %q, %v", got, err)
	}
	if got, err := arRun(t, lib, nil, "ls", "t.a"); err != nil || !strings.Contains(got, " sub/c.txt\n") {
		t.Errorf("ls t.a = %q, %v; want sub/c.txt listed", got, err)
	}
	out := filepath.Join(root, "out")
	os.Mkdir(out, 0o755)
	if got, err := arRun(t, out, nil, "ar", "x", "../lib/t.a"); err != nil {
		t.Errorf("ar x ../lib/t.a: %v\n%s", err, got)
	}
	for name, data := range map[string]string{"c.txt": "see\n", "a.txt": "hello\n", "b.txt": "odd"} {
		if b, err := os.ReadFile(filepath.Join(out, name)); err != nil || string(b) != data {
			t.Errorf("ar x: %s = %q, %v; want %q", name, b, err, data)
		}
	}
	if _, err := arRun(t, obj, nil, "ar", "x", "../lib/t.a", "../obj/a.txt"); err == nil ||
		err.Error() != "ar: ../lib/t.a: thin member ../obj/a.txt is the file a.txt it would be extracted to" {
		t.Errorf("ar x of a member over its own file: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(obj, "a.txt")); string(b) != "hello\n" {
		t.Errorf("ar x over the member's own file left it %q", b)
	}
	os.WriteFile(filepath.Join(obj, "a.txt"), []byte("hello, longer\n"), 0o644)
	if _, err := arRun(t, lib, nil, "ar", "p", "t.a", "../obj/a.txt"); err == nil ||
		err.Error() != "ar: t.a: thin member ../obj/a.txt: file of 14 bytes where the archive's header says 6: the archive is stale" {
		t.Errorf("ar p of a stale member: %v", err)
	}
	os.Remove(filepath.Join(obj, "b.txt"))
	if _, err := arRun(t, lib, nil, "ar", "p", "t.a", "../obj/b.txt"); err == nil ||
		err.Error() != "ar: t.a: thin member ../obj/b.txt: no such file or directory" {
		t.Errorf("ar p of a missing member: %v", err)
	}
	if got, err := arRun(t, lib, nil, "ar", "t", "t.a"); err != nil || got != "sub/c.txt\n../obj/a.txt\n../obj/b.txt\n" {
		t.Errorf("ar t with a missing member = %q, %v", got, err)
	}
}
