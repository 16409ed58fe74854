package mkimg

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// Options is one mkimg(1) command line: the scheme, the partitions and
// the geometry of the disk to write.
type Options struct {
	// Scheme is the partitioning scheme, "gpt" or "mbr" (-s).
	Scheme string
	// Partitions are the partition slots in order (-p); an Unused one
	// takes a slot and leaves its entry empty.
	Partitions []Partition
	// Output is the file to write (-o); the library's WriteFile takes its
	// path as an argument and ignores this field.
	Output string
	// SectorSize is the logical sector size in bytes (-S): a power of two
	// from 512 to 4096; 0 means 512.
	SectorSize int
	// BlockSize is the physical block size in bytes (-P), a power of two
	// no smaller than SectorSize; GPT partitions start on its multiples.
	// 0 means SectorSize.
	BlockSize int
	// Heads and SectorsPerTrack are the simulated geometry (-H, -T), 1 to
	// 255 and 1 to 63; 0 means 1. An MBR's CHS fields are all ones unless
	// both exceed 1, and MBR partitions are rounded up to whole tracks.
	Heads, SectorsPerTrack int
	// Active is the 1-based MBR partition whose BootIndicator is 0x80
	// (-a, 1 to 100); 0 means the first one when there is boot code.
	Active int
	// Bootcode is a file of boot code for LBA 0 (-b); its bytes before
	// the partition records are kept. "" means none.
	Bootcode string
	// FreeBSDTestMode is -y: GUIDs are FreeBSD's test-mode counters
	// (every byte of the n'th GUID drawn is n), giving freebsd-mkimg -y's
	// bytes. Without it GUIDs follow the package's derivation rule.
	FreeBSDTestMode bool
}

// Partition is one -p specification.
type Partition struct {
	// Type is the scheme-neutral type alias, such as efi or freebsd-ufs.
	Type string
	// Label is the optional label (TYPE/LABEL); only GPT holds labels.
	Label string
	// File is the file whose bytes fill the partition (TYPE:=FILE); the
	// partition is as large as the file, rounded up to whole sectors.
	File string
	// Size is the byte size of an empty partition (TYPE::SIZE), rounded
	// up to whole sectors; used when File is "".
	Size uint64
	// Unused marks a "-" slot: an entry left empty.
	Unused bool
	// Source, when not nil, gives the partition's bytes in place of
	// File, which must then be "": an io.ReaderAt, or a file system
	// written into the disk in place (see Source). The partition is as
	// large as the source, rounded up to whole sectors.
	Source Source
}

// Parse reads mkimg(1)'s arguments (without the program name) into
// Options. It takes -s, -p (TYPE[/LABEL]:=FILE, TYPE[/LABEL]::SIZE and
// -), -o, -y, -S, -P, -H, -T, -a, -b and -f raw, as separate or joined arguments
// ("-s gpt" or "-sgpt"); every other option, partition offsets and
// :-CMD partitions are errors wrapping ErrOption.
func Parse(args []string) (*Options, error) {
	o := &Options{}
	seen := map[byte]bool{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || a[0] != '-' || a == "--" {
			return nil, fmt.Errorf("%w: unexpected argument %q", ErrOption, a)
		}
		flag := a[1]
		if flag == 'y' {
			if len(a) > 2 {
				return nil, fmt.Errorf("%w: -y takes no value", ErrOption)
			}
			o.FreeBSDTestMode = true
			continue
		}
		if !strings.ContainsRune("sopfSPHTab", rune(flag)) {
			return nil, fmt.Errorf("%w: unknown or unsupported option %s", ErrOption, a)
		}
		val := a[2:]
		if val == "" {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("%w: -%c needs a value", ErrOption, flag)
			}
			i++
			val = args[i]
		}
		if flag != 'p' && seen[flag] {
			return nil, fmt.Errorf("%w: -%c given twice", ErrOption, flag)
		}
		seen[flag] = true
		if err := o.set(flag, val); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// set stores one option's value.
func (o *Options) set(flag byte, val string) error {
	var err error
	switch flag {
	case 's':
		o.Scheme = val
	case 'o':
		o.Output = val
	case 'b':
		o.Bootcode = val
	case 'f':
		if val != "raw" {
			err = fmt.Errorf("%w: -f %q: only the raw format is supported yet", ErrOption, val)
		}
	case 'p':
		var p Partition
		p, err = ParsePartition(val)
		o.Partitions = append(o.Partitions, p)
	case 'S':
		o.SectorSize, err = parseInt(val, "-S logical sector size", 512, math.MaxInt32+1)
	case 'P':
		o.BlockSize, err = parseInt(val, "-P physical sector size", 512, math.MaxInt32+1)
	case 'H':
		o.Heads, err = parseInt(val, "-H number of heads", 1, 255)
	case 'T':
		o.SectorsPerTrack, err = parseInt(val, "-T track size", 1, 63)
	case 'a':
		o.Active, err = parseInt(val, "-a partition ordinal", 1, 100)
	}
	return err
}

// parseInt reads an option's number as mkimg does (ParseSize) and checks
// it lies in [lo, hi].
func parseInt(val, what string, lo, hi uint64) (int, error) {
	n, err := ParseSize(val)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%w: %s %q: want a number from %d to %d", ErrOption, what, val, lo, hi)
	}
	return int(n), nil
}

// ParsePartition reads one -p specification: TYPE[/LABEL]:=FILE,
// TYPE[/LABEL]::SIZE or "-" for an unused slot. The type must be
// non-empty, and a label, when there is a slash, too.
func ParsePartition(spec string) (Partition, error) {
	if spec == "-" {
		return Partition{Unused: true}, nil
	}
	bad := func(why string) (Partition, error) {
		return Partition{}, fmt.Errorf("%w: -p %q: %s", ErrOption, spec, why)
	}
	colon := strings.IndexByte(spec, ':')
	if colon < 1 || colon+1 >= len(spec) {
		return bad("want TYPE[/LABEL]::SIZE, TYPE[/LABEL]:=FILE or -")
	}
	var p Partition
	p.Type = spec[:colon]
	if t, l, ok := strings.Cut(p.Type, "/"); ok {
		if t == "" || l == "" {
			return bad("empty type or label")
		}
		p.Type, p.Label = t, l
	}
	kind, contents := spec[colon+1], spec[colon+2:]
	switch kind {
	case ':':
		size, _, hasOffset := strings.Cut(contents, ":")
		if hasOffset {
			return bad("partition offsets are not supported yet")
		}
		n, err := ParseSize(size)
		if err != nil {
			return bad(err.Error())
		}
		p.Size = n
	case '=':
		if contents == "" {
			return bad("no file name")
		}
		p.File = contents
	case '-':
		return bad("command partitions (:-CMD) are not supported yet")
	default:
		return bad("want :: (size), := (file) or :- (command) after the type")
	}
	return p, nil
}

// ParseSize reads a number as mkimg reads sizes (expand_number(3)): an
// unsigned integer in decimal, 0x hexadecimal or 0 octal, then at most
// one suffix b, k, m, g, t, p or e (either case) multiplying it by a
// power of 1024.
func ParseSize(s string) (uint64, error) {
	end := len(s)
	shift := 0
	if end > 0 {
		if i := strings.IndexByte("bkmgtpe", lower(s[end-1])); i >= 0 {
			shift = 10 * i
			end--
		}
	}
	n, err := strconv.ParseUint(s[:end], 0, 64)
	digits := strings.ToLower(s[:end])
	if err != nil || strings.ContainsAny(digits, "_+-") || strings.HasPrefix(digits, "0b") || strings.HasPrefix(digits, "0o") {
		return 0, fmt.Errorf("bad number %q", s)
	}
	if shift > 0 && bits.LeadingZeros64(n) < shift {
		return 0, fmt.Errorf("number %q too large", s)
	}
	return n << shift, nil
}

// lower returns c in lower case when it is an ASCII letter.
func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
