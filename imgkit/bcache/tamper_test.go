package bcache

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommitChecksTemporaryFile changes the temporary file behind an
// Image's back, as another process could, and checks that Commit refuses
// to rename it into place, names it, removes it and leaves the final path
// alone (fails without the checks: Commit renamed a short or foreign file
// and returned nil).
func TestCommitChecksTemporaryFile(t *testing.T) {
	t.Parallel()
	const size = 1 << 16
	tamper := map[string]func(t *testing.T, tmp string){
		"truncated": func(t *testing.T, tmp string) {
			if err := os.Truncate(tmp, size/2); err != nil {
				t.Fatal(err)
			}
		},
		"replaced": func(t *testing.T, tmp string) {
			other := tmp + ".other"
			if err := os.WriteFile(other, make([]byte, size), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(other, tmp); err != nil {
				t.Fatal(err)
			}
		},
		"removed": func(t *testing.T, tmp string) {
			if err := os.Remove(tmp); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, change := range tamper {
		for _, m := range []Mode{ModeCopy, ModeMmap} {
			t.Run(name+"/"+m.String(), func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				out := filepath.Join(dir, "img")
				if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
					t.Fatal(err)
				}
				im := create(t, out, size, m)
				if _, err := im.WriteAt([]byte("new"), 0); err != nil {
					t.Fatal(err)
				}
				tmp := im.tmp
				change(t, tmp)
				err := im.Commit()
				if !errors.Is(err, ErrTampered) || !strings.HasPrefix(err.Error(), out+": ") || strings.Contains(err.Error(), tmp) || strings.Contains(err.Error(), "bcache") {
					t.Fatalf("Commit: error %v, want ErrTampered naming %s and not %s", err, out, tmp)
				}
				if b, _ := os.ReadFile(out); string(b) != "old" {
					t.Errorf("final path holds %d bytes, want the old file", len(b))
				}
				if names := listDir(t, dir); len(names) != 1 {
					t.Errorf("directory holds %q, want only img", names)
				}
			})
		}
	}
}

// TestCreateTooLargeNamesFile checks that a size the file system refuses
// is reported with the image's name, not the temporary file's.
func TestCreateTooLargeNamesFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, err := Create(filepath.Join(dir, "img"), 1<<62, &Options{Mode: ModeCopy})
	if err == nil {
		t.Skip("the file system takes a file of 4 EiB")
	}
	if !strings.HasPrefix(err.Error(), "sizing "+filepath.Join(dir, "img")+" to ") || strings.Contains(err.Error(), ".fixturegen-tmp-") {
		t.Errorf("error %v does not name the image alone", err)
	}
	if names := listDir(t, dir); len(names) != 0 {
		t.Errorf("left %q", names)
	}
}
