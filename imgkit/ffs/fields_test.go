package ffs

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/imgfmt/imgfmttest"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// TestFields describes writer images of both versions and byte orders and
// checks the fields against the source tree and the image's bytes.
func TestFields(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	writeTree(t, src, false)
	ts := time.Unix(1600000000, 0).UTC()
	for _, v := range []int{1, 2} {
		for _, bo := range []string{"le", "be"} {
			t.Run(fmt.Sprintf("v%d-%s", v, bo), func(t *testing.T) {
				t.Parallel()
				o := &Options{Version: v, BSize: 4096, FSize: 512, Timestamp: ts}
				if bo == "be" {
					o.ByteOrder = binary.BigEndian
				}
				img := build(t, src, o, bcache.ModeAuto)
				if !Match(img[:describe.HeadSize]) {
					t.Error("Match rejects the image")
				}
				fields, err := Fields(bytes.NewReader(img), int64(len(img)))
				if err != nil {
					t.Fatal(err)
				}
				byKey := tooltest.IndexFields(t, fields, int64(len(img)))
				get := func(p, name string) describe.Field {
					t.Helper()
					f, ok := byKey[[2]string{p, name}]
					if !ok {
						t.Fatalf("no field %s %s", p, name)
					}
					return f
				}
				want := func(p, name, value string) {
					t.Helper()
					if f := get(p, name); f.Value != value {
						t.Errorf("%s %s = %q, want %q", p, name, f.Value, value)
					}
				}
				magic := "0x11954"
				if v == 2 {
					magic = "0x19540119"
				}
				want("superblock", "fs_magic", magic)
				want("superblock", "fs_minfree", "8")
				want("superblock", "fs_bsize", "4096")
				want("superblock", "fs_time", "2020-09-13 12:26:40 UTC (1600000000)")
				want("cylinder group 0", "cg_magic", "0x90255")
				want("cylinder group 0", "cg_cgx", "0")
				want("/a/small", "di_size", "100")
				want("/a/small", "di_mode", "0100644 (regular file)")
				want("/a", "di_mode", "040755 (directory)")
				want("/a/short", "symlink target", `"small"`)
				want("/a/long", "symlink target", strconv.Quote(string(bytes.Repeat([]byte("x/"), 50))+"target"))
				want("/b/hard", "di_nlink", "2")

				// The data field is the file's size and hash, and its spans
				// hold the file's bytes.
				for _, p := range []string{"a/small", "a/frag3k", "b/single", "b/double", "z"} {
					data, _ := os.ReadFile(filepath.Join(src, p))
					sum := sha256.Sum256(data)
					f := get("/"+p, "data")
					if w := fmt.Sprintf("%d bytes, sha256:%s", len(data), hex.EncodeToString(sum[:])[:16]); f.Value != w {
						t.Errorf("/%s data = %q, want %q", p, f.Value, w)
					}
					var got []byte
					for _, s := range f.Spans {
						got = append(got, img[s[0]:s[1]]...)
					}
					if len(got) < len(data) || !bytes.Equal(got[:len(data)], data) {
						t.Errorf("/%s: spans %v do not hold the data", p, f.Spans)
					}
				}
				if f := get("/b/double", "indirect blocks"); len(f.Spans) == 0 {
					t.Errorf("/b/double: indirect blocks without spans")
				}

				// di_mtime lies at its offset in dinode.h, and says so.
				f := get("/z", "di_mtime")
				off, size := int64(24), int64(4)
				if v == 2 {
					off, size = 40, 8
				}
				fs, _ := NewReader(bytes.NewReader(img), int64(len(img)))
				in, _ := fs.Inode("z")
				if w := fs.g.inodeOff(int64(in.Ino)) + off; f.Offset != w || f.Size != size {
					t.Errorf("/z di_mtime at %#x (%d bytes), want %#x (%d)", f.Offset, f.Size, w, size)
				}
				if w := timeString(in.Mtime.Unix()); f.Value != w {
					t.Errorf("/z di_mtime = %q, want %q", f.Value, w)
				}
				if v == 2 {
					get("/z", "di_birthtime")
				}
			})
		}
	}
}

// TestMatch checks that Match looks only at fs_magic of the superblocks
// at 8192 and 65536, that a file's first describe.HeadSize bytes hold them,
// and that Describe gives what the contract asks.
func TestMatch(t *testing.T) {
	t.Parallel()
	if end := sblockUFS2 + sblockSize; end > describe.HeadSize {
		t.Errorf("the UFS2 superblock ends at byte %d, past describe.HeadSize %d", end, describe.HeadSize)
	}
	if fsMagicOff != 1372 {
		t.Errorf("fs_magic at byte %d of struct fs, want 1372", fsMagicOff)
	}
	for _, sb := range []int{sblockUFS1, sblockUFS2} {
		for _, tc := range []struct {
			o     binary.ByteOrder
			magic uint32
			want  bool
		}{
			{binary.LittleEndian, fsUFS1Magic, true}, {binary.BigEndian, fsUFS1Magic, true},
			{binary.LittleEndian, fsUFS2Magic, true}, {binary.BigEndian, fsUFS2Magic, true},
			{binary.LittleEndian, cgMagic, false}, {binary.LittleEndian, 0, false},
		} {
			head := make([]byte, sb+fsMagicOff+4)
			tc.o.PutUint32(head[sb+fsMagicOff:], tc.magic)
			if got := Match(head); got != tc.want {
				t.Errorf("Match(%#x at byte %d, %v) = %v, want %v", tc.magic, sb+fsMagicOff, tc.o, got, tc.want)
			}
			if Match(head[:len(head)-1]) {
				t.Errorf("Match accepts a file that ends inside fs_magic at byte %d", sb+fsMagicOff)
			}
		}
	}
	d := Describe()
	if err := d.Check(); err != nil || d.Name != "ffs" || d.Fields == nil || d.Summary == nil || d.Column == nil {
		t.Errorf("Describe() = %+v, %v", d, err)
	}
	if got := d.Summary(&FS{g: geometry{version: 2, bsize: 32768, fsize: 4096}}); got != "UFS2, 32768/4096 block/fragment" {
		t.Errorf("Summary = %q", got)
	}
}

// TestFieldsSelfIndirect checks that an indirect block that points at
// itself is an error, not a walk of nindir³ blocks.
func TestFieldsSelfIndirect(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "f"), bytes.Repeat([]byte("x"), 20*4096), 0o644)
	ts := time.Unix(1, 0)
	img := build(t, src, &Options{Version: 1, BSize: 4096, FSize: 512, Timestamp: ts}, bcache.ModeAuto)
	fs, err := NewReader(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		t.Fatal(err)
	}
	in, err := fs.Inode("f")
	if err != nil {
		t.Fatal(err)
	}
	ioff := fs.g.inodeOff(int64(in.Ino))
	d := (*dinode1)(img[ioff:][:dinode1Size])
	// Make di_ib[2] a triple indirect block whose entries all point at
	// the single indirect block of the file.
	tri := in.Indirect[0]
	fs.o.put32(d.diIb(2), tri)
	for i := int64(0); i < fs.g.nindir; i++ {
		fs.o.put32(img[tri*fs.g.fsize+4*i:], tri)
	}
	if _, err := Fields(bytes.NewReader(img), int64(len(img))); err == nil {
		t.Fatal("no error")
	}
	// The reader's BlockList must stop as well, with an error, instead of
	// walking nindir^3 entries.
	fs, err = NewReader(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		t.Fatal(err)
	}
	if in, err = fs.Inode("f"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := fs.BlockList(in); !errors.Is(err, ErrFormat) {
		t.Fatalf("BlockList of a looping indirect block: got %v, want ErrFormat", err)
	}
}

// FuzzFields checks that no image makes Fields panic or hang, and that
// its ErrFormat errors are *imgfmt.FormatErrors with a place in the image.
func FuzzFields(f *testing.F) {
	for _, v := range []int{1, 2} {
		f.Add(fuzzSeed(f, v))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, err := Fields(bytes.NewReader(b), int64(len(b)))
		imgfmttest.CheckFormatError(t, err, int64(len(b)), "ffs", ErrFormat)
	})
}
