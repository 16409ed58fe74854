package ext

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestFieldsJournalAndUnusedInodes describes an ext4 image whose journal
// debugfs switched to checksum v3 (jo -c) and an ext3 one: the journal
// inode and its JBD2 superblock under "journal", s_checksum matching,
// and each group's unused inodes; a byte changed in the journal
// superblock's s_uuid and in a free inode shows in both fields.
func TestFieldsJournalAndUnusedInodes(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, refMke2fs)
	src := mkTree(t)
	for _, v := range []struct {
		name, csum string
		args       []string
	}{
		{"ext4-csum-v3", "(matches)", []string{"-t", "ext4", "-b", "4096"}},
		{"ext3-1k", "0x0", []string{"-t", "ext3", "-b", "1024"}},
	} {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			img := mke2fs(t, refMke2fs, src, "32M", append([]string{"-N", "6000"}, v.args...)...)
			if v.name == "ext4-csum-v3" {
				debugfs(t, img, true, "jo -c", "jc")
			}
			fields := func(img string) map[[2]string]string {
				fl, err := os.Open(img)
				if err != nil {
					t.Fatal(err)
				}
				defer fl.Close()
				fi, _ := fl.Stat()
				all, err := Fields(fl, fi.Size())
				if err != nil {
					t.Fatal(err)
				}
				tooltest.IndexFields(t, all, fi.Size())
				out := map[[2]string]string{}
				for _, x := range all {
					out[[2]string{x.Path, x.Name}] = x.Value
				}
				return out
			}
			clean := fields(img)
			for key, want := range map[[2]string]string{
				{"journal", "h_magic"}:     "0xc03b3998",
				{"journal", "h_blocktype"}: "4",
				{"journal", "s_first"}:     "1",
				{"journal", "s_nr_users"}:  "1",
				{"journal", "s_uuid"}:      "6b33f6a2-4bd5-4fb1-9ba5-2c4f3a0d1e77",
				{"journal", "i_mode"}:      "0100600 (regular file)",
			} {
				if got := clean[key]; got != want {
					t.Errorf("%v: %q, want %q", key, got, want)
				}
			}
			if got := clean[[2]string{"journal", "s_checksum"}]; !strings.HasSuffix(got, v.csum) {
				t.Errorf("journal s_checksum %q, want … %s", got, v.csum)
			}
			unused := clean[[2]string{"group 0", "unused inodes"}]
			if !strings.Contains(unused, " inodes in ") {
				t.Fatalf("group 0 unused inodes: %q", unused)
			}

			f := openImage(t, img)
			jin, err := f.inode(le.Uint32(f.sb.sJournalInum()))
			if err != nil {
				t.Fatal(err)
			}
			m, err := f.mapOf(jin)
			if err != nil {
				t.Fatal(err)
			}
			jblk, _, err := m.lookup(0)
			if err != nil {
				t.Fatal(err)
			}
			free, err := f.inodeOff(rootIno + 1) // inode 3, reserved and never reached
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(img)
			if err != nil {
				t.Fatal(err)
			}
			b[int64(jblk)*f.g.bsize+0x30] ^= 1 // s_uuid
			b[free+0x64] ^= 1                  // i_generation
			bad := filepath.Join(t.TempDir(), "bad.img")
			if err := os.WriteFile(bad, b, 0o644); err != nil {
				t.Fatal(err)
			}
			changed := fields(bad)
			if got := changed[[2]string{"journal", "s_uuid"}]; got == clean[[2]string{"journal", "s_uuid"}] {
				t.Errorf("journal s_uuid unchanged: %q", got)
			}
			if v.csum == "(matches)" && !strings.Contains(changed[[2]string{"journal", "s_checksum"}], "(computed 0x") {
				t.Errorf("journal s_checksum after a change: %q", changed[[2]string{"journal", "s_checksum"}])
			}
			if got := changed[[2]string{"group 0", "unused inodes"}]; got == unused {
				t.Errorf("group 0 unused inodes unchanged by a change to inode 3: %q", got)
			}
		})
	}
}
