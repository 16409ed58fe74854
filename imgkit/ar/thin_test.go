package ar

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// thinTree writes, under a new temporary directory, the layout a build
// makes thin archives of: lib/ (the archive's directory) with sub/c.txt,
// obj/a.txt beside lib, and abs/d.txt, named by its absolute path. It
// returns the root and the member paths as given to ar from lib/.
func thinTree(t *testing.T) (root string, members []string) {
	t.Helper()
	root = t.TempDir()
	files := map[string]string{
		"lib/sub/c.txt": "see\n",
		"obj/a.txt":     "hello\n",
		"obj/b.txt":     "odd", // an odd size: no padding follows in a thin archive
		"abs/d.txt":     "absolute\n",
	}
	for name, data := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, []string{"sub/c.txt", "../obj/a.txt", "../obj/b.txt", filepath.Join(root, "abs", "d.txt")}
}

// writeThin writes lib/t.a under root, a thin archive of members made by
// this package's Plan, with the paths as stored.
func writeThin(t *testing.T, root string, members []string) string {
	t.Helper()
	lib := filepath.Join(root, "lib")
	var es []Entry
	for _, m := range members {
		p := m
		if !filepath.IsAbs(p) {
			p = filepath.Join(lib, p)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		es = append(es, Entry{Header: Header{Name: filepath.ToSlash(m), Mode: 0o644, Size: int64(len(b))}, Data: bytes.NewReader(b)})
	}
	name := filepath.Join(lib, "t.a")
	if err := os.WriteFile(name, planBytes(t, es, &Options{Thin: true}), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// allData returns the data of every member of r, in archive order, as "ar
// p" prints it.
func allData(t *testing.T, r *Reader) []byte {
	t.Helper()
	var out bytes.Buffer
	for i := range r.Members() {
		sr, err := r.Section(i)
		if err != nil {
			t.Fatalf("Section(%d) of %s: %v", i, r.Members()[i].Name, err)
		}
		if _, err := io.Copy(&out, sr); err != nil {
			t.Fatalf("reading %s: %v", r.Members()[i].Name, err)
		}
	}
	return out.Bytes()
}

// TestThinReadMatchesGNU checks that OpenReader reads a thin archive that
// GNU ar wrote (members below, beside and outside the archive's directory,
// one by absolute path) as "ar p" prints it, and that the fs.FS gives the
// member that has a valid fs.FS path.
func TestThinReadMatchesGNU(t *testing.T) {
	t.Parallel()
	arTool := tooltest.Need(t, "ar")
	root, members := thinTree(t)
	lib := filepath.Join(root, "lib")
	cmd := exec.Command(arTool, append([]string{"rcT", "t.a"}, members...)...)
	cmd.Dir = lib
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ar rcT: %v\n%s", err, out)
	}
	cmd = exec.Command(arTool, "p", "t.a")
	cmd.Dir = lib
	want, err := cmd.Output()
	if err != nil {
		t.Fatalf("ar p: %v", err)
	}
	rc, err := OpenReader(filepath.Join(lib, "t.a"))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if !rc.Thin() || len(rc.Members()) != len(members) {
		t.Fatalf("Thin %v, %d members, want a thin archive of %d", rc.Thin(), len(rc.Members()), len(members))
	}
	if got := allData(t, &rc.Reader); !bytes.Equal(got, want) {
		t.Errorf("members' data:\n%q\nGNU ar p:\n%q", got, want)
	}
	b, err := fs.ReadFile(rc, "sub/c.txt")
	if err != nil || string(b) != "see\n" {
		t.Errorf("fs.ReadFile sub/c.txt = %q, %v", b, err)
	}
	// The same archive through the other constructors.
	ab, err := os.ReadFile(filepath.Join(lib, "t.a"))
	if err != nil {
		t.Fatal(err)
	}
	rd, err := NewReaderDir(bytes.NewReader(ab), int64(len(ab)), lib)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	if got := allData(t, rd); !bytes.Equal(got, want) {
		t.Errorf("NewReaderDir: members' data %q, want %q", got, want)
	}
	rf, err := NewReaderFS(bytes.NewReader(ab), int64(len(ab)), os.DirFS(lib))
	if err != nil {
		t.Fatal(err)
	}
	defer rf.Close()
	if sr, err := rf.Section(0); err != nil {
		t.Errorf("NewReaderFS: sub/c.txt: %v", err)
	} else if b, _ := io.ReadAll(sr); string(b) != "see\n" {
		t.Errorf("NewReaderFS: sub/c.txt = %q", b)
	}
	for i := 1; i < len(members); i++ {
		if _, err := rf.Section(i); !errors.Is(err, ErrThinMember) {
			t.Errorf("NewReaderFS: %s: %v, want ErrThinMember (not a path in an fs.FS)", rf.Members()[i].Name, err)
		}
	}
}

// TestThinOpenFS checks that the format contract's Open, given the
// archive's *os.File, reads thin members beside it (as "fixturegen cat"
// does), and given another io.ReaderAt refuses them with ErrThin.
func TestThinOpenFS(t *testing.T) {
	t.Parallel()
	root, members := thinTree(t)
	name := writeThin(t, root, members)
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	fsys, err := Describe().Open(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	if b, err := fs.ReadFile(fsys, "sub/c.txt"); err != nil || string(b) != "see\n" {
		t.Errorf("Open(*os.File): sub/c.txt = %q, %v", b, err)
	}
	r, err := NewReader(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Section(0); !errors.Is(err, ErrThin) {
		t.Errorf("NewReader: Section: %v, want ErrThin", err)
	}
	if _, err := r.Open("sub/c.txt"); !errors.Is(err, ErrThin) {
		t.Errorf("NewReader: Open: %v, want ErrThin", err)
	}
}

// TestThinMemberErrors checks each way a thin member's file can fail to be
// the file its header describes: each is an error wrapping ErrThinMember
// that names the member, from Section and from the fs.FS, and none blocks.
func TestThinMemberErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		change func(t *testing.T, p string) // p: the member file obj/a.txt
		want   string
		is     error
	}{
		{"missing", func(t *testing.T, p string) { os.Remove(p) }, "no such file or directory", fs.ErrNotExist},
		{"shorter", func(t *testing.T, p string) { os.WriteFile(p, []byte("hi\n"), 0o644) }, "file of 3 bytes where the archive's header says 6: the archive is stale", nil},
		{"longer", func(t *testing.T, p string) { os.WriteFile(p, []byte("hello there\n"), 0o644) }, "file of 12 bytes where the archive's header says 6", nil},
		{"directory", func(t *testing.T, p string) { os.Remove(p); os.Mkdir(p, 0o755) }, "not a regular file", nil},
		{"fifo", func(t *testing.T, p string) {
			os.Remove(p)
			tooltest.Mkfifo(t, p)
		}, "not a regular file", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root, members := thinTree(t)
			name := writeThin(t, root, members)
			c.change(t, filepath.Join(root, "obj", "a.txt"))
			rc, err := OpenReader(name)
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			if _, err := rc.Section(0); err != nil {
				t.Errorf("Section(0) of an intact member: %v", err)
			}
			_, err = rc.Section(1)
			want := "ar: thin member ../obj/a.txt: " + c.want
			if err == nil || !errors.Is(err, ErrThinMember) || len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
				t.Errorf("Section(1): %v\nwant %s (ErrThinMember)", err, want)
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("Section(1): %v does not wrap %v", err, c.is)
			}
		})
	}
}

// TestThinMemberShrinks checks that a member file that shrinks after
// Section checked its size gives an error, not a short member.
func TestThinMemberShrinks(t *testing.T) {
	t.Parallel()
	root, members := thinTree(t)
	name := writeThin(t, root, members)
	rc, err := OpenReader(name)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	sr, err := rc.Section(1)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(root, "obj", "a.txt"), 2); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(sr)
	if !errors.Is(err, io.ErrUnexpectedEOF) || !errors.Is(err, ErrThinMember) {
		t.Errorf("reading a member file cut to 2 bytes: %q, %v; want ErrThinMember and io.ErrUnexpectedEOF", b, err)
	}
}

// TestThinFSPaths checks NewReaderFS's refusal of the member names an fs.FS
// cannot hold, and its reading of a MapFS (whose files have ReadAt).
func TestThinFSPaths(t *testing.T) {
	t.Parallel()
	var es []Entry
	for _, m := range [][2]string{{"a.txt", "aaa"}, {"../up.txt", "up"}, {"/abs.txt", "abs"}} {
		es = append(es, Entry{Header: Header{Name: m[0], Mode: 0o644, Size: int64(len(m[1]))}, Data: bytes.NewReader([]byte(m[1]))})
	}
	b := planBytes(t, es, &Options{Thin: true})
	fsys := fstest.MapFS{"a.txt": {Data: []byte("aaa")}, "up.txt": {Data: []byte("up")}, "abs.txt": {Data: []byte("abs")}}
	r, err := NewReaderFS(bytes.NewReader(b), int64(len(b)), fsys)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := fs.ReadFile(r, "a.txt"); err != nil || string(got) != "aaa" {
		t.Errorf("a.txt = %q, %v", got, err)
	}
	for i := 1; i <= 2; i++ {
		if _, err := r.Section(i); !errors.Is(err, ErrThinMember) {
			t.Errorf("%s: %v, want ErrThinMember", r.Members()[i].Name, err)
		}
	}
}

// TestThinNested checks that a member of a regular archive that GNU ar's T
// stored inside a thin archive ("/0:8") is refused by name, as llvm-ar
// refuses it, rather than as a bad number.
func TestThinNested(t *testing.T) {
	t.Parallel()
	b := []byte("!<thin>\n" +
		"//                                              8         `\n" +
		"reg.a/\n\n" +
		"/0:8            0           0     0     644     3         `\n")
	_, err := NewReader(bytes.NewReader(b), int64(len(b)))
	if !errors.Is(err, ErrName) || !bytes.Contains([]byte(err.Error()), []byte("nested archive member")) {
		t.Errorf("NewReader of a nested archive member: %v, want ErrName naming a nested archive member", err)
	}
}
