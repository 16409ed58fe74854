package mkimg

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestParseOptions checks what Parse stores for mkimg's options: offsets,
// commands, capacities, -t, -v, -f, long options and their
// abbreviations, and the last value of a repeated option.
func TestParseOptions(t *testing.T) {
	t.Parallel()
	ts := int64(0x1f)
	for _, c := range []struct {
		args []string
		want Options
	}{
		{[]string{"-s", "gpt", "-p", "efi::1m:4m", "-p", "freebsd-ufs::64k:+0x10"}, Options{Scheme: "gpt", Partitions: []Partition{
			{Type: "efi", Size: 1 << 20, Offset: 4 << 20, Absolute: true},
			{Type: "freebsd-ufs", Size: 64 << 10, Offset: 16},
		}}},
		{[]string{"-s", "gpt", "-p", "efi/ESP:=a:1m"}, Options{Scheme: "gpt", Partitions: []Partition{{Type: "efi", Label: "ESP", File: "a:1m"}}}},
		{[]string{"-s", "mbr", "-p", "freebsd:-cat a:1m | gzip"}, Options{Scheme: "mbr", Partitions: []Partition{{Type: "freebsd", Command: "cat a:1m | gzip"}}}},
		{[]string{"-c", "1m", "-C", "2m"}, Options{MinCapacity: 1 << 20, MaxCapacity: 2 << 20}},
		{[]string{"--capacity", "3k"}, Options{MinCapacity: 3 << 10, MaxCapacity: 3 << 10}},
		{[]string{"--cap=3k"}, Options{MinCapacity: 3 << 10, MaxCapacity: 3 << 10}},
		{[]string{"-c", "1k", "-t", "0x1f", "-vv", "-v", "-f", "RAW", "-S", "512", "-S", "4096"}, Options{MinCapacity: 1 << 10, Timestamp: &ts, Verbose: 3, Format: "RAW", SectorSize: 4096}},
		{[]string{"-s", "gpt", "--version", "-s", "mbr", "x"}, Options{Scheme: "gpt", Query: "version"}},
		{[]string{"--form"}, Options{Query: "formats"}},
		{[]string{"--schemes"}, Options{Query: "schemes"}},
		{[]string{"-h", "extra"}, Options{Query: "help"}},
	} {
		got, err := Parse(c.args)
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		if !reflect.DeepEqual(*got, c.want) {
			t.Errorf("%q:\ngot  %+v\nwant %+v", c.args, *got, c.want)
		}
	}
}

// TestParseRefusals checks the command lines Parse refuses, with mkimg's
// words where its usage has them.
func TestParseRefusals(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]string{
		"-s gpt -s mbr":          "-s given twice: multiple schemes given",
		"-b x -b y":              "-b given twice: multiple bootcode given",
		"-o x -o y":              "-o given twice: multiple output files given",
		"-f raw -f raw":          "-f given twice: multiple formats given",
		"-s gpt -p efi::1k x":    `trailing arguments: "x"`,
		"x -s gpt -p efi::1k":    `trailing arguments: "x"`,
		"-s gpt -p efi::1k -- y": `trailing arguments: "y"`,
		"-f foo":                 `-f "foo": unknown format; want `,
		"-c 0":                   `-c minimum capacity "0": want a number of bytes from 1 to`,
		"-C 9223372036854775808": "-C maximum capacity",
		"--capacity 1q":          "--capacity",
		"-t 12k":                 `-t timestamp "12k": want a number of seconds since the epoch`,
		"-t 09":                  "-t timestamp",
		"-p efi::1m:+":           `offset: bad number ""`,
		"-p efi::1m:4q":          `offset: bad number "4q"`,
		"-p efi:-":               "no command",
		"-q":                     "unknown option -q",
		"--nope":                 "unknown option --nope",
		"-S 1000":                "",
		"-H 0":                   `-H number of heads "0": want a number from 1 to 255`,
		"-T 64":                  `-T track size "64": want a number from 1 to 63`,
	} {
		_, err := Parse(strings.Fields(line))
		if want == "" {
			if err != nil {
				t.Errorf("%s: %v; the power of two is checked when writing", line, err)
			}
			continue
		}
		if !errors.Is(err, ErrOption) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an ErrOption saying %q", line, err, want)
		}
	}
}
