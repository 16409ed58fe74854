package inspect

import (
	"bytes"
	"io/fs"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/msdos"
)

// TestCellWidth checks the terminal cells of the characters a listing can
// hold: ASCII, accented letters (precomposed and combining), code page 850
// box drawing, CJK and fullwidth forms, emoji, zero-width characters and
// bytes that are not UTF-8.
func TestCellWidth(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s    string
		want int
	}{
		{"", 0},
		{"README.TXT", 10},
		{"AéÇÜßõ B.Ä░█", 12},
		{"e\u0301te\u0301", 3}, // é t é, each é an e and a combining acute
		{"漢字.TXT;1@23", 13},
		{"ｆｕｌｌ", 8},
		{"한국어", 6},
		{"カタカナ", 8},
		{"🙂x", 3},
		{"a\u200bb\ufeff", 2},
		{"\xff\xfeok", 4},
		{"ı\u00a0\u00ad", 3},
	} {
		if got := cellWidth(c.s); got != c.want {
			t.Errorf("cellWidth(%q) = %d, want %d", c.s, got, c.want)
		}
	}
}

// TestWriteListAligned checks that every column of ls and ls -l lines up
// in terminal cells when each holds multibyte text: owners and sizes of
// several widths, a format column of decoded FAT short names, CJK and
// combining characters, and paths and link targets of the same kinds. The
// path must start in the same cell on every line, and the size and owner
// columns must end in the same cell.
func TestWriteListAligned(t *testing.T) {
	t.Parallel()
	items := []Item{
		{Path: "README.TXT", Mode: 0o644, Size: 7, Time: "2026-01-02 03:04:05", Extra: "README.TXT", HasOwner: true, UID: 0, GID: 0},
		{Path: "AéÇÜßõ B.Ä░█", Mode: 0o644, Size: 123456, Time: "2026-01-02 03:04:05", Extra: "AéÇÜßõ B.Ä░█", HasOwner: true, UID: 65534, GID: 100},
		{Path: "漢字/", Mode: fs.ModeDir | 0o755, Time: "2026-01-02 03:04:05", Extra: "漢字.;1@23"},
		{Path: "漢字/cafe\u0301", Mode: 0o600, Size: 42, Time: "2026-01-02 03:04:05", Extra: "CAFE\u0301~1", HasOwner: true, UID: 1000, GID: 1000},
		{Path: "リンク", Mode: fs.ModeSymlink | 0o777, Time: "2026-01-02 03:04:05", Extra: "@0x44", Link: "漢字/cafe\u0301"},
	}
	for _, long := range []bool{false, true} {
		var b bytes.Buffer
		write := WriteList
		if long {
			write = WriteLongList
		}
		if err := write(&b, items); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if len(lines) != len(items) {
			t.Fatalf("long %v: %d lines, want %d:\n%s", long, len(lines), len(items), b.String())
		}
		// pathCell returns the cell at which it's path starts on line:
		// the path ends the line, or comes before " -> target".
		pathCell := func(line string, it Item) int {
			rest := line
			if it.Link != "" && long {
				rest, _, _ = strings.Cut(line, " -> ")
			}
			if !strings.HasSuffix(rest, " "+it.Path) {
				t.Fatalf("long %v: line %q does not end in the path %q", long, line, it.Path)
			}
			return cellWidth(rest[:len(rest)-len(it.Path)])
		}
		pathAt, sizeEnd, timeAt := -1, -1, -1
		for i, it := range items {
			line := lines[i]
			at := pathCell(line, it)
			ti := strings.Index(line, it.Time)
			tc := cellWidth(line[:ti])
			se := cellWidth(strings.TrimRight(line[:ti], " "))
			if i == 0 {
				pathAt, sizeEnd, timeAt = at, se, tc
				continue
			}
			if at != pathAt || se != sizeEnd || tc != timeAt {
				t.Errorf("long %v: line %d: path at cell %d, size ends at %d, time at %d; line 0: %d, %d, %d\n%s",
					long, i, at, se, tc, pathAt, sizeEnd, timeAt, b.String())
			}
		}
		if long && !strings.HasSuffix(lines[4], " リンク -> 漢字/cafe\u0301") {
			t.Errorf("link line %q", lines[4])
		}
	}
}

// TestListFATHighBytes checks ls of a FAT image whose short names hold
// bytes 0x82, 0x80, 0x9A, 0xE4 and 0xB0 (as DOS wrote names in code page
// 850): the names show as mdir shows them, and the path column lines up
// after the short-name column.
func TestListFATHighBytes(t *testing.T) {
	t.Parallel()
	img := fatImage(t, map[string]string{"AXXXXX.TXT": "a\n", "README.TXT": "r\n"}, msdos.Options{})
	i := bytes.Index(img, []byte("AXXXXX  TXT"))
	if i < 0 {
		t.Fatal("short name AXXXXX.TXT not found")
	}
	copy(img[i+1:], []byte{0x82, 0x80, 0x9A, 0xE4, 0xB0})
	var b bytes.Buffer
	if err := ListFile(&b, bytes.NewReader(img), int64(len(img))); err != nil {
		t.Fatal(err)
	}
	want := "-rw-r--r-- 2 2023-11-14 22:13:20 AéÇÜõ░.TXT AéÇÜõ░.TXT\n" +
		"-rw-r--r-- 2 2023-11-14 22:13:20 README.TXT README.TXT\n"
	if b.String() != want {
		t.Errorf("ls:\n%s\nwant:\n%s", b.String(), want)
	}
}
