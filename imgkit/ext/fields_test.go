package ext

import (
	"os"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestFieldsReference describes reference images of every read variant:
// each (Path, Name) once and inside the image, every checksum matching,
// and the fields a diff names for a file there, with the values mke2fs
// gave them.
func TestFieldsReference(t *testing.T) {
	t.Parallel()
	tooltest.Need(t, refMke2fs)
	src := mkTree(t)
	for _, v := range readVariants {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			img := mke2fs(t, refMke2fs, src, "32M", append([]string{"-N", "6000"}, v.args...)...)
			f, err := os.Open(img)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			fi, err := f.Stat()
			if err != nil {
				t.Fatal(err)
			}
			fields, err := Fields(f, fi.Size())
			if err != nil {
				t.Fatal(err)
			}
			byKey := tooltest.IndexFields(t, fields, fi.Size())
			for _, x := range fields {
				if strings.Contains(x.Value, "computed") {
					t.Errorf("%s %s: %s", x.Path, x.Name, x.Value)
				}
			}
			for key, want := range map[[2]string]string{
				{"superblock", "s_magic"}:     "0xef53",
				{"superblock", "s_uuid"}:      "6b33f6a2-4bd5-4fb1-9ba5-2c4f3a0d1e77",
				{"superblock", "s_mkfs_time"}: "2023-11-14 22:13:20 UTC (1700000000)",
				{"/a.txt", "i_size_lo"}:       "6",
				{"/a.txt", "i_mode"}:          "0100644 (regular file)",
				{"/l59", "symlink target"}:    `"` + strings.Repeat("t", 55) + `/end"`,
				{"/fifo", "i_mode"}:           "010644 (fifo)",
			} {
				if got := byKey[key].Value; got != want {
					t.Errorf("%v: %q, want %q", key, got, want)
				}
			}
			if strings.HasPrefix(v.name, "ext4") && !strings.Contains(v.name, "no64") {
				if got := byKey[[2]string{"/a.txt", "i_checksum"}].Value; !strings.HasSuffix(got, "(matches)") {
					t.Errorf("/a.txt i_checksum: %q", got)
				}
			}
			rc := openImage(t, img)
			tooltest.CheckOpenFile(t, rc, "big.bin")
		})
	}
}
