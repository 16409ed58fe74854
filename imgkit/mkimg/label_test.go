package mkimg

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// gptLabels are labels past ASCII: a Latin-1 letter, CJK characters, an
// emoji (past U+FFFF, a surrogate pair) and the longest label of each,
// 36 UTF-16 units, which FreeBSD's mkimg, counting bytes, refuses.
var gptLabels = []string{
	"é",
	"根分区",
	"boot😀",
	strings.Repeat("é", 36),
	strings.Repeat("😀", 18),
}

// TestGPTLabelsUTF16 checks that a GPT label is stored as UTF-16LE, a
// character past U+FFFF as a surrogate pair, that the reader and sgdisk
// give it back as given, and that each label past ASCII gets one
// warning line saying how FreeBSD's bytes differ.
func TestGPTLabelsUTF16(t *testing.T) {
	t.Parallel()
	args := []string{"-s", "gpt", "-p", "efi/ascii::1k"}
	for _, l := range gptLabels {
		args = append(args, "-p", "freebsd-ufs/"+l+"::1k")
	}
	o, err := Parse(args)
	if err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	o.Warn = &warn
	disk, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	entry := func(i int) []byte { return disk[2*512+i*gptEntrySize:][:gptEntrySize] }
	if name := entry(1)[56:]; !bytes.Equal(name[:4], []byte{0xe9, 0x00, 0x00, 0x00}) {
		t.Errorf("é is stored as % x, want e9 00", name[:4])
	}
	if name := entry(3)[56:]; !bytes.Equal(name[8:14], []byte{0x3d, 0xd8, 0x00, 0xde, 0, 0}) {
		t.Errorf("😀 is stored as % x, want the surrogate pair 3d d8 00 de", name[8:12])
	}
	tab, err := ReadTable(bytes.NewReader(disk), int64(len(disk)))
	if err != nil {
		t.Fatal(err)
	}
	want := append([]string{"ascii"}, gptLabels...)
	for i, e := range tab.Partitions {
		if e.Label != want[i] {
			t.Errorf("partition %d: the reader gives label %q, want %q", i+1, e.Label, want[i])
		}
	}
	lines := strings.Split(strings.TrimSuffix(warn.String(), "\n"), "\n")
	if len(lines) != len(gptLabels) {
		t.Fatalf("warnings %q; want one per label past ASCII", warn.String())
	}
	if w := "mkimg: warning: partition 2: label \"é\" is written as UTF-16, 'é' as e9 00, where FreeBSD's mkimg writes each UTF-8 byte as a code unit, c3 00 a9 00 (c3 ff a9 ff on amd64)"; lines[0] != w {
		t.Errorf("warning %q, want %q", lines[0], w)
	}
	if w := "'😀' as 3d d8 00 de"; !strings.Contains(lines[2], w) {
		t.Errorf("warning %q does not say %q", lines[2], w)
	}

	name := filepath.Join(t.TempDir(), "disk.img")
	if err := os.WriteFile(name, disk, 0o644); err != nil {
		t.Fatal(err)
	}
	// sgdisk (1.0.9) turns a surrogate pair into bytes that are not
	// UTF-8, so it checks the labels within U+FFFF; sfdisk -d, which
	// escapes each byte past ASCII as \xNN, checks them all.
	sgdisk := tooltest.Need(t, "sgdisk")
	for i, l := range want {
		if strings.ContainsRune(l, '😀') {
			continue
		}
		out, err := exec.Command(sgdisk, "-i", strconv.Itoa(i+1), name).CombinedOutput()
		if err != nil {
			t.Fatalf("sgdisk -i %d: %v: %s", i+1, err, out)
		}
		if w := "Partition name: '" + l + "'"; !strings.Contains(string(out), w) {
			t.Errorf("sgdisk -i %d: want %q in %s", i+1, w, out)
		}
	}
	out, err := exec.Command(tooltest.Need(t, "sfdisk"), "-d", name).CombinedOutput()
	if err != nil {
		t.Fatalf("sfdisk -d: %v: %s", err, out)
	}
	for i, l := range want {
		var esc strings.Builder
		for _, b := range []byte(l) {
			if b < 0x80 {
				esc.WriteByte(b)
			} else {
				fmt.Fprintf(&esc, "\\x%02x", b)
			}
		}
		if w := `name="` + esc.String() + `"`; !strings.Contains(string(out), w) {
			t.Errorf("sfdisk -d: partition %d: want %s in %s", i+1, w, out)
		}
	}
}

// TestGPTLabelRefused checks that a GPT label longer than 36 UTF-16
// units, or not UTF-8, is refused in one line naming the partition and
// the label, and that the limit counts units, not bytes.
func TestGPTLabelRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ label, say string }{
		{strings.Repeat("é", 37), "is 37 UTF-16 units long; a gpt label holds 36"},
		{strings.Repeat("😀", 18) + "x", "is 37 UTF-16 units long; a gpt label holds 36"},
		{strings.Repeat("a", 37), "is 37 UTF-16 units long; a gpt label holds 36"},
		{"bad\xc3", `label "bad\xc3" is not UTF-8 text`},
	} {
		o := &Options{Scheme: "gpt", Partitions: []Partition{{Type: "efi", Size: 1024}, {Type: "efi", Label: c.label, Size: 1024}}}
		_, err := Build(o)
		if !errors.Is(err, ErrPartition) || !strings.Contains(err.Error(), "partition 2: label ") || !strings.Contains(err.Error(), c.say) {
			t.Errorf("label %q: got %v, want partition 2's label refused saying %q", c.label, err, c.say)
		}
	}
}

// TestGPTNameDecode checks that the reader decodes a PartitionName's
// UTF-16 with its surrogate pairs, up to the first NUL or the field's
// end, and replaces an unpaired surrogate with U+FFFD.
func TestGPTNameDecode(t *testing.T) {
	t.Parallel()
	field := func(units ...uint16) []byte {
		b := make([]byte, 72)
		for i, u := range units {
			binary.LittleEndian.PutUint16(b[2*i:], u)
		}
		return b
	}
	full := utf16.Encode([]rune(strings.Repeat("é", 36)))
	for _, c := range []struct {
		b    []byte
		want string
	}{
		{field(0xe9, 'x'), "éx"},
		{field(0xd83d, 0xde00), "😀"},
		{field(0xd83d, 'x'), "\ufffdx"},
		{field(0xde00, 0xd83d), "\ufffd\ufffd"},
		{field(0xd83d), "\ufffd"},
		{field('a', 0, 'b'), "a"},
		{field(full...), strings.Repeat("é", 36)},
		{field(0xe9)[:3], "é"},
	} {
		if got := gptName(c.b); got != c.want {
			t.Errorf("gptName(% x) = %q, want %q", c.b[:8], got, c.want)
		}
	}
}
