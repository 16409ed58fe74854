//go:build linux || darwin

package catalog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// kindRunner runs the commands of the fingerprint tests, each of which
// writes into OUT what it reads, so that every change the tests make to an
// input changes the output:
//
//	join OUT IN...   the contents of each IN, followed if a symbolic link
//	lcat OUT IN...   the target of each IN that is a symbolic link, else
//	                 its contents (not followed)
//	tree OUT DIR     each entry under DIR (followed if a link): its path,
//	                 type, link target, device number or contents
type kindRunner struct{}

func (kindRunner) Plan(dir string, args []string) (*Plan, error) {
	p := &Plan{Output: 1}
	for _, a := range args[2:] {
		p.Inputs = append(p.Inputs, Input{Path: a, Follow: args[0] != "lcat"})
	}
	switch args[0] {
	case "join", "lcat", "tree":
		return p, nil
	}
	return nil, fmt.Errorf("unknown command %q", args[0])
}

func (kindRunner) Run(ctx context.Context, c *Command) error {
	var b strings.Builder
	for _, in := range c.Args[2:] {
		p := filepath.Join(c.Dir, in)
		switch c.Args[0] {
		case "join":
			d, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b.Write(d)
		case "lcat":
			if t, err := os.Readlink(p); err == nil {
				b.WriteString("-> " + t + "\n")
				continue
			}
			d, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b.Write(d)
		case "tree":
			if err := describeTree(&b, p+"/"); err != nil {
				return err
			}
		}
	}
	return os.WriteFile(filepath.Join(c.Dir, c.Args[1]), []byte(b.String()), 0o644)
}

// describeTree writes a line for each entry under root.
func describeTree(b *strings.Builder, root string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(root, p)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(b, "%s %v", r, fi.Mode().Type())
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			t, _ := os.Readlink(p)
			fmt.Fprintf(b, " -> %s", t)
		case fi.Mode()&fs.ModeDevice != 0:
			fmt.Fprintf(b, " %#x", fi.Sys().(*syscall.Stat_t).Rdev)
		case fi.Mode().IsRegular():
			d, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(b, " %q", d)
		}
		b.WriteString("\n")
		return nil
	})
}

// fingerprintTime is the time the tests give every file they compare.
var fingerprintTime = time.Unix(1_700_000_000, 0)

// setTimes gives each path fingerprintTime and one change time
// (tooltest.SameTimes).
func setTimes(t *testing.T, paths ...string) {
	t.Helper()
	tooltest.SameTimes(t, fingerprintTime, paths...)
}

// TestBuildSeesEveryInputKind changes an input or an output of a built
// catalogue in a way that keeps its size, mode and times, for each kind of
// file the fingerprint sees, and checks that the next build runs the entry
// again. For an output, the build says why, and Verify, before that build,
// fails naming it.
func TestBuildSeesEveryInputKind(t *testing.T) {
	t.Parallel()
	type files map[string]string // name: contents, or "-> target" for a link, "fifo", "chr MAJOR"
	for _, tc := range []struct {
		name     string
		manifest string
		files    files
		times    []string // files given one time and change time before the first build
		change   func(t *testing.T, dir string)
		output   bool // the change is to the output
		devices  bool // Verify, which copies no device, cannot build it
	}{
		{
			name: "output edited in place, times set back", manifest: "a: join a x\n", files: files{"x": "one\n"}, output: true,
			change: func(t *testing.T, dir string) { rewriteKeepTimes(t, filepath.Join(dir, "a"), "two\n") },
		},
		{
			name: "output replaced by a rename, same size and times", manifest: "a: join a x\n", files: files{"x": "one\n"}, output: true,
			change: func(t *testing.T, dir string) { replaceKeepTimes(t, filepath.Join(dir, "a"), "two\n") },
		},
		{
			name: "followed link retargeted to a file of the same size and times", manifest: "a: join a x\n",
			files: files{"x": "-> t1", "t1": "one\n", "t2": "two\n"}, times: []string{"t1", "t2"},
			change: func(t *testing.T, dir string) { relink(t, filepath.Join(dir, "x"), "t2") },
		},
		{
			name: "link retargeted, not followed", manifest: "a: lcat a x\n",
			files: files{"x": "-> t1", "t1": "one\n", "t2": "two\n"}, times: []string{"x"},
			change: func(t *testing.T, dir string) { relink(t, filepath.Join(dir, "x"), "t2") },
		},
		{
			name: "file replaced by a rename, same size and times", manifest: "a: join a x\n", files: files{"x": "one\n"},
			change: func(t *testing.T, dir string) { replaceKeepTimes(t, filepath.Join(dir, "x"), "two\n") },
		},
		{
			name: "directory entry, a link, retargeted", manifest: "a: tree a d\n",
			files: files{"d/l": "-> t1", "d/t1": "one\n", "d/t2": "two\n"}, times: []string{"d", "d/l"},
			change: func(t *testing.T, dir string) {
				relink(t, filepath.Join(dir, "d", "l"), "t2")
				setTimes(t, filepath.Join(dir, "d"), filepath.Join(dir, "d", "l"))
			},
		},
		{
			name: "directory entry, a file, replaced by a rename", manifest: "a: tree a d\n",
			files: files{"d/f": "one\n"}, times: []string{"d", "d/f"},
			change: func(t *testing.T, dir string) {
				replaceKeepTimes(t, filepath.Join(dir, "d", "f"), "two\n")
				setTimes(t, filepath.Join(dir, "d"))
			},
		},
		{
			name: "followed link to a directory retargeted to its twin", manifest: "a: tree a d\n",
			files: files{"d": "-> d1", "d1/f": "one\n", "d2/f": "two\n"}, times: []string{"d1", "d1/f", "d2", "d2/f"},
			change: func(t *testing.T, dir string) { relink(t, filepath.Join(dir, "d"), "d2") },
		},
		{
			name: "directory entry, a FIFO, replaced by an empty file", manifest: "a: tree a d\n",
			files: files{"d/p": "fifo"}, times: []string{"d", "d/p"},
			change: func(t *testing.T, dir string) {
				p := filepath.Join(dir, "d", "p")
				os.Remove(p)
				os.WriteFile(p, nil, 0o644)
				setTimes(t, filepath.Join(dir, "d"), p)
			},
		},
		{
			name: "directory entry, a device, replaced by another", manifest: "a: tree a d\n",
			files: files{"d/c": "chr 1"}, times: []string{"d", "d/c"}, devices: true,
			change: func(t *testing.T, dir string) {
				p := filepath.Join(dir, "d", "c")
				os.Remove(p)
				if err := unix.Mknod(p, unix.S_IFCHR|0o644, int(unix.Mkdev(1, 5))); err != nil {
					t.Fatal(err)
				}
				setTimes(t, filepath.Join(dir, "d"), p)
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newCatalog(t, map[string]string{ManifestName: tc.manifest})
			if !makeFiles(t, c.Dir, tc.files) {
				t.Skip("cannot make device nodes here")
			}
			var times []string
			for _, n := range tc.times {
				times = append(times, filepath.Join(c.Dir, n))
			}
			setTimes(t, times...)
			o := &Options{Runner: kindRunner{}, Update: true}
			if _, err := c.Build(context.Background(), o); err != nil {
				t.Fatal(err)
			}
			if res, err := c.Build(context.Background(), o); err != nil || res.UpToDate != 1 {
				t.Fatalf("second build: %v %v", res, err)
			}
			before, _ := os.ReadFile(filepath.Join(c.Dir, "a"))
			tc.change(t, c.Dir)
			if tc.output {
				_, err := c.Verify(context.Background(), &Options{Runner: kindRunner{}})
				var ve *Error
				if !errors.As(err, &ve) || ve.Result.Failed != 1 || !strings.Contains(strings.Join(ve.Result.Entries[0].Errors, "\n"), "the output a in the catalogue folder has") {
					t.Errorf("Verify with the output changed: %v, want a failure naming a", err)
				}
				o = &Options{Runner: kindRunner{}}
			}
			res, err := c.Build(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if res.Built != 1 {
				t.Fatalf("after the change: %s, want a rebuilt", res.Summary())
			}
			why := strings.Join(res.Entries[0].Errors, "\n")
			if said := strings.Contains(why, "the output is not the file the last build wrote"); said != tc.output {
				t.Errorf("the build said %q", why)
			}
			after, _ := os.ReadFile(filepath.Join(c.Dir, "a"))
			if tc.output && string(after) != string(before) {
				t.Errorf("rebuilt output %q, want %q", after, before)
			}
			if !tc.output && string(after) == string(before) {
				t.Errorf("the change did not change the output %q: the test tests nothing", after)
			}
			if _, err := c.Verify(context.Background(), &Options{Runner: kindRunner{}}); err != nil && !tc.devices {
				t.Errorf("Verify after the rebuild: %v", err)
			}
		})
	}
}

// makeFiles makes the files under dir; it reports false when it cannot
// make a device node.
func makeFiles(t *testing.T, dir string, files map[string]string) bool {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		var err error
		switch {
		case strings.HasPrefix(data, "-> "):
			err = os.Symlink(strings.TrimPrefix(data, "-> "), p)
		case data == "fifo":
			err = unix.Mkfifo(p, 0o644)
		case strings.HasPrefix(data, "chr "):
			if err = unix.Mknod(p, unix.S_IFCHR|0o644, int(unix.Mkdev(1, 3))); err != nil {
				return false
			}
		default:
			err = os.WriteFile(p, []byte(data), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return true
}

// rewriteKeepTimes writes data over the start of the file p, in place,
// and sets its times back.
func rewriteKeepTimes(t *testing.T, p, data string) {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(data), 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// replaceKeepTimes renames a new file holding data, with p's mode and
// times, over p.
func replaceKeepTimes(t *testing.T, p, data string) {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	tmp := p + ".new"
	if err := os.WriteFile(tmp, []byte(data), fi.Mode().Perm()); err != nil {
		t.Fatal(err)
	}
	os.Chmod(tmp, fi.Mode().Perm())
	if err := os.Chtimes(tmp, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
}

// relink points the symbolic link p at target, by a rename as ln -sf
// does, with the old link's times.
func relink(t *testing.T, p, target string) {
	t.Helper()
	tmp := p + ".new"
	if err := os.Symlink(target, tmp); err != nil {
		t.Fatal(err)
	}
	setTimes(t, tmp)
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
}
