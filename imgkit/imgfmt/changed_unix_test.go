//go:build unix

package imgfmt_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/cd9660"
	"github.com/fixturegen/fixturegen/imgkit/cpio"
	"github.com/fixturegen/fixturegen/imgkit/ext"
	"github.com/fixturegen/fixturegen/imgkit/ffs"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/msdos"
)

// TestWritersTreeChangedAfterWalk checks every writer of a walked tree
// against a file whose name something else took between the walk and
// the copy of its data: a named pipe without a writer (whose open
// blocked for ever before the files were opened with O_NONBLOCK) and a
// folder. Each build must end at once with one line that names the
// file, never hang or succeed.
func TestWritersTreeChangedAfterWalk(t *testing.T) {
	t.Parallel()
	builds := []struct {
		name  string
		build func(*fstree.Tree) error
	}{
		{"ext4", func(tr *fstree.Tree) error {
			_, err := ext.Build(tr, &ext.Options{Type: "ext4", Size: 16 << 20})
			return err
		}},
		{"ext2", func(tr *fstree.Tree) error {
			_, err := ext.Build(tr, &ext.Options{Type: "ext2", Size: 16 << 20})
			return err
		}},
		{"msdos", func(tr *fstree.Tree) error { _, err := msdos.Build(tr, nil); return err }},
		{"ffs", func(tr *fstree.Tree) error { _, err := ffs.Build(tr, nil); return err }},
		{"cd9660", func(tr *fstree.Tree) error { _, err := cd9660.Build(tr, nil); return err }},
		{"cpio", func(tr *fstree.Tree) error { _, err := cpio.Build(tr, nil); return err }},
	}
	for _, b := range builds {
		for _, kind := range []string{"fifo", "folder"} {
			t.Run(b.name+"/"+kind, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				for i := range 16 {
					data := bytes.Repeat([]byte{byte(i + 1)}, 3000+5000*i)
					if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d", i)), data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				tree, err := fstree.Dir(dir).Tree(nil)
				if err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(dir, "f011")
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
				if kind == "fifo" {
					err = syscall.Mkfifo(p, 0o644)
				} else {
					err = os.Mkdir(p, 0o755)
				}
				if err != nil {
					t.Fatal(err)
				}
				done := make(chan error, 1)
				go func() { done <- b.build(tree) }()
				select {
				case err := <-done:
					if err == nil || !strings.Contains(err.Error(), "f011") || strings.Contains(err.Error(), "\n") {
						t.Errorf("got %v, want one line naming f011", err)
					}
				case <-time.After(20 * time.Second):
					// the goroutine stays blocked: end the test binary's
					// wait by opening the pipe's other end
					if kind == "fifo" {
						if w, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
							w.Close()
						}
					}
					t.Fatal("the build hangs")
				}
			})
		}
	}
}
