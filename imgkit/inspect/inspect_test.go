package inspect

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/ar"
	"github.com/fixturegen/fixturegen/imgkit/cpio"
	"github.com/fixturegen/fixturegen/imgkit/ffs"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
	"github.com/fixturegen/fixturegen/imgkit/msdos"
)

var t0 = time.Unix(1700000000, 0).UTC()

// fatImage writes a FAT image of files with the options o and returns its
// bytes.
func fatImage(t testing.TB, files map[string]string, o msdos.Options) []byte {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, data := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(data), Mode: 0o644, ModTime: t0}
	}
	if o.Size == 0 {
		o.Size = 1440 << 10
	}
	o.Timestamp = t0
	b, err := msdos.Build(fstree.FS(fsys), &o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type member struct {
	name, data string
	mtime      int64
}

func arArchive(t testing.TB, members []member) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := ar.NewWriter(&buf, nil)
	for _, m := range members {
		if err := w.WriteHeader(&ar.Header{Name: m.name, Mode: 0o644, ModTime: time.Unix(m.mtime, 0), Size: int64(len(m.data))}); err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(m.data))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func diff(t *testing.T, a, b []byte) (*Report, string) {
	t.Helper()
	rep, err := Diff(bytes.NewReader(a), int64(len(a)), bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	rep.Write(&sb, "a", "b")
	return rep, sb.String()
}

func wantLines(t *testing.T, out string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !strings.Contains(out, "\n"+l+"\n") {
			t.Errorf("no line %q in\n%s", l, out)
		}
	}
}

func TestDetect(t *testing.T) {
	t.Parallel()
	fat := fatImage(t, map[string]string{"a.txt": "a\n"}, msdos.Options{})
	fat32 := fatImage(t, map[string]string{"a.txt": "a\n"}, msdos.Options{FATType: 32, SectorsPerCluster: 1, Size: 33 << 20})
	arc := arArchive(t, []member{{"a.txt", "a\n", 0}})
	ufs1 := ffsImage(t, map[string]string{"a.txt": "a\n"}, nil, ffs.Options{Version: 1, Size: 256 << 10})
	ufs2be := ffsImage(t, map[string]string{"a.txt": "a\n"}, nil, ffs.Options{Version: 2, Size: 256 << 10, ByteOrder: binary.BigEndian})
	for _, tc := range []struct {
		data []byte
		want string
	}{
		{fat, "msdos"}, {fat32, "msdos"}, {arc, "ar"}, {[]byte("!<thin>\n"), "ar"},
		{ufs1, "ffs"}, {ufs2be, "ffs"}, {ufs2be[:describe.HeadSize], "ffs"},
		{cpioArchive(t, cpio.FormatNewc), "cpio"}, {cpioArchive(t, cpio.FormatODC), "cpio"},
		{[]byte("KV1\na=b\n"), "kv"}, {[]byte("hello"), ""}, {nil, ""}, {make([]byte, 4096), ""}, {fat[:511], ""},
	} {
		f := Detect(bytes.NewReader(tc.data), int64(len(tc.data)))
		got := ""
		if f != nil {
			got = f.Name
		}
		if got != tc.want {
			t.Errorf("Detect(%.8q) = %q, want %q", tc.data, got, tc.want)
		}
		// No other registered format claims the file: the order of
		// registration decides nothing among these.
		head := tc.data[:min(len(tc.data), describe.HeadSize)]
		for _, name := range Formats() {
			if f := byName(name); name != tc.want && f.Match(head) {
				t.Errorf("%s.Match accepts a %q file too", name, tc.want)
			}
		}
	}
	// The formats of this module come first, in this order; kv is the
	// format contract_test.go registers.
	if got := Formats(); strings.Join(got, ",") != "msdos,ar,ffs,cd9660,cpio,ext,disk,kv" {
		t.Errorf("Formats() = %q", got)
	}
}

// cpioArchive returns a cpio archive of one file in format f.
func cpioArchive(t *testing.T, f cpio.Format) []byte {
	t.Helper()
	b, err := cpio.Build(fstree.FS(fstest.MapFS{"a.txt": {Data: []byte("a\n"), Mode: 0o644}}), &cpio.Options{Format: f})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// byName returns the registered format name.
func byName(name string) *describe.Kind {
	mu.RLock()
	defer mu.RUnlock()
	for _, f := range formats {
		if f.Name == name {
			return f
		}
	}
	return nil
}

func TestDiffFAT(t *testing.T) {
	t.Parallel()
	files := map[string]string{"hello.txt": "hello\n", "A long name.txt": "long\n"}
	a := fatImage(t, files, msdos.Options{})
	if rep, out := diff(t, a, a); !rep.Same || out != "a and b are identical\n" {
		t.Errorf("same image: %+v %q", rep, out)
	}
	b := fatImage(t, files, msdos.Options{SectorsPerCluster: 2})
	_, out := diff(t, a, b)
	wantLines(t, out,
		"  boot sector: BPB_SecPerClus at byte 0xd: 1 -> 2",
		"  boot sector: BPB_FATSz16 at byte 0x16: 9 -> 5")
	if !strings.HasPrefix(out, "a and b differ (msdos: FAT12, 512-byte clusters vs FAT12, 1024-byte clusters):\n") {
		t.Errorf("first line of %q", out)
	}

	// One file's contents: the volume id covers sizes and times, not
	// contents, so only the data differs, and no byte is unexplained.
	files2 := map[string]string{"hello.txt": "hellp\n", "A long name.txt": "long\n"}
	c := fatImage(t, files2, msdos.Options{})
	rep, out := diff(t, a, c)
	wantLines(t, out, "  /hello.txt: data: 6 bytes, sha256:5891b5b522d5df08 -> 6 bytes, sha256:bf8c83416f31143e; contents first differ at byte 4 of the file")
	for _, c := range rep.Changes {
		if c.Kind == KindBytes {
			t.Errorf("unexplained bytes: %+v\n%s", c, out)
		}
	}

	// A file only on one side.
	files3 := map[string]string{"hello.txt": "hello\n", "A long name.txt": "long\n", "new.txt": "new\n"}
	d := fatImage(t, files3, msdos.Options{})
	_, out = diff(t, a, d)
	if !strings.Contains(out, "  /new.txt: only in b at byte 0x") {
		t.Errorf("new file not reported:\n%s", out)
	}
	// A different label: a boot sector field, by name.
	e := fatImage(t, files, msdos.Options{VolumeLabel: "FIXTURE"})
	_, out = diff(t, a, e)
	wantLines(t, out, `  boot sector: BS_VolLab at byte 0x2b: "NO NAME    " -> "FIXTURE    "`)
}

func TestDiffFAT32Fields(t *testing.T) {
	t.Parallel()
	fields, err := msdos.Fields(bytes.NewReader(fatImage(t, map[string]string{"x": "x"}, msdos.Options{FATType: 32, SectorsPerCluster: 1, Size: 33 << 20})), 33<<20)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range fields {
		key := f.Path + "|" + f.Name
		if seen[key] {
			t.Errorf("duplicate field %s", key)
		}
		seen[key] = true
	}
	for _, k := range []string{"boot sector|BPB_RootClus", "FSInfo|FSI_Free_Count", "backup boot sector|BPB_FATSz32", "FAT 2|table", "/x|DIR_FileSize", "/x|data"} {
		if !seen[k] {
			t.Errorf("no field %s", k)
		}
	}
}

func TestDiffAr(t *testing.T) {
	t.Parallel()
	a := arArchive(t, []member{{"one.txt", "one\n", 0}, {"two.txt", "two\n", 0}})
	b := arArchive(t, []member{{"one.txt", "one\n", 1700000000}, {"two.txt", "TWO\n", 0}})
	_, out := diff(t, a, b)
	wantLines(t, out,
		`  one.txt: ar member header date at byte 0x18: "0" -> "1700000000"`,
		"  two.txt: data at byte 0x84: 4 bytes, sha256:27dd8ed44a83ff94 -> 4 bytes, sha256:465a43c7b7b79945; contents first differ at byte 0 of the file")
	// An inserted member moves the next one.
	c := arArchive(t, []member{{"one.txt", "one\n", 0}, {"new.txt", "new\n", 0}, {"two.txt", "two\n", 0}})
	_, out = diff(t, a, c)
	wantLines(t, out,
		"  two.txt: moved from byte 0x48 to byte 0x88 (ar member header name)",
		"  new.txt: only in b at byte 0x48")
	if strings.Contains(out, "bytes 0x") {
		t.Errorf("unexplained byte ranges:\n%s", out)
	}
}

// ffsImage writes a UFS image of files, all with modification time t0
// except those in mtimes, and returns its bytes.
func ffsImage(t testing.TB, files map[string]string, mtimes map[string]time.Time, o ffs.Options) []byte {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, data := range files {
		mt := t0
		if m, ok := mtimes[name]; ok {
			mt = m
		}
		fsys[name] = &fstest.MapFile{Data: []byte(data), Mode: 0o644, ModTime: mt}
	}
	// fs_time is the same in every image: a time later than the files',
	// which the rule of ClampTimes leaves as they are.
	o.Timestamp, o.ClampTimes = t0.Add(24*time.Hour), true
	if o.BSize == 0 {
		o.BSize, o.FSize = 4096, 512
	}
	b, err := ffs.Build(fstree.FS(fsys), &o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDiffFFS(t *testing.T) {
	t.Parallel()
	files := map[string]string{"hello.txt": "hello\n", "d/b.txt": "bee\n"}
	for _, v := range []int{1, 2} {
		a := ffsImage(t, files, nil, ffs.Options{Version: v, Size: 256 << 10})
		b := ffsImage(t, files, map[string]time.Time{"d/b.txt": t0.Add(time.Hour)}, ffs.Options{Version: v, Size: 256 << 10, MinFree: new(5)})
		rep, out := diff(t, a, b)
		if rep.Same || rep.FormatA != "ffs" || rep.ParseErrA != nil || rep.ParseErrB != nil {
			t.Fatalf("v%d: %+v\n%s", v, rep, out)
		}
		sb := int64(8192)
		if v == 2 {
			sb = 65536
		}
		size := "(1700000000) -> 2023-11-14 23:13:20 UTC (1700003600)"
		wantLines(t, out, fmt.Sprintf("  superblock: fs_minfree at byte %#x: 8 -> 5", sb+60))
		found := false
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "  /d/b.txt: di_mtime at byte 0x") && strings.HasSuffix(l, size) {
				found = true
			}
		}
		if !found {
			t.Errorf("v%d: no di_mtime line for /d/b.txt in\n%s", v, out)
		}
		if strings.Contains(out, "/hello.txt") || strings.Contains(out, "bytes 0x") {
			t.Errorf("v%d: more than the two changes:\n%s", v, out)
		}
		if testing.Verbose() {
			t.Log(out)
		}
	}
}

func TestDiffBytes(t *testing.T) {
	t.Parallel()
	a := bytes.Repeat([]byte("x"), 1000)
	b := bytes.Clone(a)
	b[10], b[500] = 'y', 'y'
	b = append(b, "tail"...)
	_, out := diff(t, a, b)
	wantLines(t, out,
		"  file size: 1000 bytes -> 1004 bytes",
		"  bytes 0xa-0xa (1 byte) differ",
		"  bytes 0x1f4-0x1f4 (1 byte) differ",
		"  bytes 0x3e8-0x3eb (4 bytes) differ; only in the longer file")
	// Many ranges are summed up.
	c := bytes.Clone(a)
	for i := 0; i < len(c); i += 20 {
		c[i] = 'z'
	}
	rep, out := diff(t, a, c)
	if n := len(rep.Changes); n != 33 || !strings.Contains(out, "  18 more ranges (18 bytes) differ\n") {
		t.Errorf("%d changes:\n%s", n, out)
	}
}

func TestList(t *testing.T) {
	t.Parallel()
	img := fatImage(t, map[string]string{"hello.txt": "hello\n", "d/A long name.txt": "long\n"}, msdos.Options{})
	var sb strings.Builder
	if err := ListFile(&sb, bytes.NewReader(img), int64(len(img))); err != nil {
		t.Fatal(err)
	}
	want := "drwxr-xr-x 0 2023-11-14 22:13:20 D            d/\n" +
		"-rw-r--r-- 5 2023-11-14 22:13:20 ALONGN~1.TXT d/A long name.txt\n" +
		"-rw-r--r-- 6 2023-11-14 22:13:20 HELLO.TXT    hello.txt\n"
	if sb.String() != want {
		t.Errorf("listing:\n%s\nwant:\n%s", sb.String(), want)
	}
	if err := ListFile(&sb, strings.NewReader("text"), 4); err != ErrUnknownFormat {
		t.Errorf("ListFile(text) = %v", err)
	}
}

// FuzzDiff checks that no pair of inputs makes Diff panic, whatever the
// formats make of them, and that identical inputs are reported the same.
func FuzzDiff(f *testing.F) {
	fat := fatImage(f, map[string]string{"a.txt": "a\n", "Long name.txt": "b\n"}, msdos.Options{Size: 64 << 10})
	arc := arArchive(f, []member{{"a.txt", "a\n", 0}, {"a very long member name.txt", "b\n", 1}})
	f.Add(fat, fat[:len(fat)/2])
	f.Add(arc, arc[:len(arc)-3])
	f.Add(arc, fat)
	ufs := ffsImage(f, map[string]string{"a.txt": "a\n"}, nil, ffs.Options{Version: 2, Size: 160 << 10})
	ufs2 := ffsImage(f, map[string]string{"a.txt": "b\n"}, nil, ffs.Options{Version: 2, Size: 160 << 10})
	f.Add(ufs, ufs2)
	f.Fuzz(func(t *testing.T, a, b []byte) {
		rep, err := Diff(bytes.NewReader(a), int64(len(a)), bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		if rep.Same != bytes.Equal(a, b) {
			t.Fatalf("Same = %v for equal = %v", rep.Same, bytes.Equal(a, b))
		}
		rep.Write(&strings.Builder{}, "a", "b")
	})
}
