package mkimg

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/internal/number"
	"github.com/fixturegen/fixturegen/imgkit/progress"
	"github.com/fixturegen/fixturegen/internal/getopt"
)

// Options is one mkimg(1) command line: the scheme, the partitions and
// the geometry of the disk to write.
type Options struct {
	// Scheme is the partitioning scheme, "gpt" or "mbr" (-s). It may be
	// "" only for a disk without partitions, which is then MinCapacity
	// bytes of zeros, as mkimg writes one.
	Scheme string
	// Partitions are the partition slots in order (-p); an Unused one
	// takes a slot and leaves its entry empty.
	Partitions []Partition
	// Output is the file to write (-o); the library's WriteFile takes its
	// path as an argument and ignores this field.
	Output string
	// OutputArg is set by Parse to the index, in the arguments it read,
	// of the word holding -o's value when it is a word of its own ("-o
	// disk"), so that a build tool can have the disk written under
	// another name; 0 when -o is absent or its value attached ("-odisk").
	OutputArg int
	// Format is the output format (-f): "" and "raw" are the raw disk;
	// qcow, qcow2, vhd, vhdf, vhdx, vmdk and vmdks are mkimg's containers
	// of it (Formats lists them).
	Format string
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
	// MinCapacity and MaxCapacity are the least and most bytes the disk
	// may have (-c, -C; --capacity sets both), each rounded up to whole
	// sectors as mkimg rounds them: a smaller disk is grown with zeros to
	// MinCapacity, a larger one is refused (ErrCapacity). 0 means no
	// bound.
	MinCapacity, MaxCapacity uint64
	// Timestamp is -t, seconds since the epoch, for the container formats
	// that record a time; nil means none was given. The raw format
	// records none.
	Timestamp *int64
	// FreeBSDTestMode is -y: GUIDs are FreeBSD's test-mode counters
	// (every byte of the n'th GUID drawn is n), giving freebsd-mkimg -y's
	// bytes. Without it GUIDs follow the package's derivation rule.
	FreeBSDTestMode bool
	// DiskGUID is the GPT's DiskGUID (the extension --disk-guid); the
	// zero GUID means it is derived. Only a scheme that stores GUIDs
	// (gpt) takes it, and not with FreeBSDTestMode.
	DiskGUID GUID
	// Verbose is how many times -v was given. When it is not 0 the lines
	// mkimg -v prints to its standard error are written to Log.
	Verbose int
	// Log receives the -v lines; nil discards them.
	Log io.Writer
	// Warn receives one line per warning, each in one Write: where the
	// disk differs from FreeBSD's mkimg's on purpose, such as an empty
	// partition's entry left unused (see DETAILS.md's
	// Independent checks); nil discards them.
	Warn io.Writer
	// Dir is the working directory of the :-CMD commands; "" means the
	// process's.
	Dir string
	// Stderr receives the standard error of the :-CMD commands, which
	// mkimg's commands share with it; nil discards it.
	Stderr io.Writer
	// Progress, when not nil, is told how far the disk is, so that
	// another goroutine can show how far a long build is: each long
	// step ("copying part.img", "hashing part.img", "scanning for data",
	// "writing" the container...; DETAILS.md lists them) with how far
	// it is, and the bytes written into the disk as they are written
	// (bcache.Options.Progress).
	Progress *progress.Meter
	// Query is set by Parse when the command line asks for information
	// instead of a disk, at the first such option, where mkimg stops
	// reading its command line: "help" (-h), "formats", "schemes" or
	// "version" (--formats, --schemes, --version). The library writes no
	// disk for it; the caller prints the answer (Formats, Schemes,
	// Version).
	Query string
}

// Partition is one -p specification.
type Partition struct {
	// Type is the scheme-neutral type alias, such as efi or freebsd-ufs.
	// FreeBSD's mkimg takes only its aliases, never a raw GUID or number.
	Type string
	// Label is the optional label (TYPE/LABEL); only GPT holds labels.
	Label string
	// File is the file whose bytes fill the partition (TYPE:=FILE); the
	// partition is as large as the file, rounded up to whole sectors. A
	// file that is not a regular file (a pipe, a device) is read to its
	// end. As mkimg reads it, when no file of this whole name exists and
	// the part after the last colon is an [+]OFFSET, that part is the
	// partition's offset (TYPE:=FILE:[+]OFFSET) and Offset and Absolute
	// must be zero.
	File string
	// Command is a command line run by /bin/sh -c whose standard output
	// fills the partition (TYPE:-CMD); the partition is as large as the
	// output, rounded up to whole sectors. A command that exits non-zero
	// is an error.
	Command string
	// Size is the byte size of an empty partition (TYPE::SIZE), rounded
	// up to whole sectors; used when File and Command are "".
	Size uint64
	// Offset is the partition's offset in bytes (:[+]OFFSET), rounded up
	// to whole sectors: with Absolute, its place from the start of the
	// disk, aligned as the scheme aligns partitions; without it, a gap
	// after where the partition would otherwise start.
	Offset uint64
	// Absolute says Offset is from the start of the disk (OFFSET rather
	// than +OFFSET).
	Absolute bool
	// Unused marks a "-" slot: an entry left empty.
	Unused bool
	// GUID is the partition's UniquePartitionGUID (the extension
	// --partition-guid); the zero GUID means it is derived. Only a used
	// slot of a scheme that stores GUIDs (gpt) takes it.
	GUID GUID
	// Source, when not nil, gives the partition's bytes in place of
	// File, which must then be "": an io.ReaderAt, or a file system
	// written into the disk in place (see Source). The partition is as
	// large as the source, rounded up to whole sectors.
	Source Source
}

// Version is the mkimg version whose command line and bytes the package
// copies, as mkimg --version prints it.
const Version = 20161016

// OptString is the getopt(3) option string of mkimg's command line:
// letters, each followed by ':' when it takes an argument.
const OptString = "a:b:c:C:f:ho:p:s:t:vyH:P:S:T:"

// longOptions are mkimg's long options, and fixturegen's.
var longOptions = []getopt.Long{
	{Name: "formats"}, {Name: "schemes"}, {Name: "version"},
	{Name: "capacity", Arg: getopt.RequiredArg},
	{Name: "disk-guid", Arg: getopt.RequiredArg},      // fixturegen's extension
	{Name: "partition-guid", Arg: getopt.RequiredArg}, // fixturegen's extension
}

// LongOptions returns the names of the long options Parse reads, each
// written --name: mkimg's (--capacity, --formats, --schemes, --version)
// and fixturegen's (--disk-guid, --partition-guid).
func LongOptions() []string {
	names := make([]string, len(longOptions))
	for i, l := range longOptions {
		names[i] = l.Name
	}
	return names
}

// getoptSpec is mkimg's command line for getopt_long(3): OptString and
// longOptions, with operands anywhere (and then refused as trailing
// arguments) and long options abbreviated, as FreeBSD's getopt_long
// reads them.
var getoptSpec = &getopt.Spec{
	Short:   OptString,
	Long:    longOptions,
	Permute: true,
	Abbrev:  true,
}

// Parse reads mkimg(1)'s arguments (without the program name) into
// Options, as FreeBSD's mkimg reads them: every option of its usage, as
// separate or joined arguments ("-s gpt" or "-sgpt"), long options
// (--capacity N, --formats, --schemes, --version) and the partition
// specifications of ParsePartition, and fixturegen's own long options
// --disk-guid GUID and --partition-guid N=GUID (setGUIDs), which mkimg
// does not have. -b, -f, -o and -s may be given once;
// for the other options the last one counts. -h and the three query
// options set Query and end the reading, as they end mkimg. An argument
// that is no option ("trailing arguments") and every bad value are errors
// wrapping ErrOption; what needs the scheme or the files (types, offsets
// of := partitions, capacities against the layout) is checked when the
// disk is written.
func Parse(args []string) (*Options, error) {
	flags, operands, err := getoptSpec.Parse(args)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrOption, err)
	}
	o := &Options{}
	seen := map[byte]bool{}
	var guids []getopt.Option // set once every -p has its slot
	for _, f := range flags {
		switch f.Long {
		case "formats", "schemes", "version":
			o.Query = f.Long
			return o, nil
		case "capacity":
			if o.MinCapacity, err = parseCapacity(f.Arg, "--capacity"); err != nil {
				return nil, err
			}
			o.MaxCapacity = o.MinCapacity
			continue
		case "disk-guid", "partition-guid":
			guids = append(guids, f)
			continue
		}
		if f.Name == 'h' {
			o.Query = "help"
			return o, nil
		}
		if why, ok := once[f.Name]; ok && seen[f.Name] {
			return nil, fmt.Errorf("%w: -%c given twice: %s", ErrOption, f.Name, why)
		}
		seen[f.Name] = true
		if f.Name == 'o' {
			o.OutputArg = f.ArgIndex
		}
		if err := o.set(f.Name, f.Arg); err != nil {
			return nil, err
		}
	}
	if len(operands) > 0 {
		return nil, fmt.Errorf("%w: trailing arguments: %q", ErrOption, operands[0])
	}
	if err := o.setGUIDs(guids); err != nil {
		return nil, err
	}
	return o, nil
}

// once holds the options mkimg takes only once, with what its usage says
// when one comes twice.
var once = map[byte]string{
	'b': "multiple bootcode given",
	'f': "multiple formats given",
	'o': "multiple output files given",
	's': "multiple schemes given",
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
		o.Format = val
		err = checkFormat(val)
	case 'p':
		var p Partition
		p, err = ParsePartition(val)
		o.Partitions = append(o.Partitions, p)
	case 'c':
		o.MinCapacity, err = parseCapacity(val, "-c minimum capacity")
	case 'C':
		o.MaxCapacity, err = parseCapacity(val, "-C maximum capacity")
	case 't':
		var t int64
		if t, err = number.Strtoll(val); err != nil {
			err = fmt.Errorf("%w: -t timestamp %q: want a number of seconds since the epoch", ErrOption, val)
		}
		o.Timestamp = &t
	case 'v':
		o.Verbose++
	case 'y':
		o.FreeBSDTestMode = true
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

// parseCapacity reads a capacity in bytes, 1 to 2^63-1 as mkimg takes it.
func parseCapacity(val, what string) (uint64, error) {
	n, err := ParseSize(val)
	if err != nil || n < 1 || n > math.MaxInt64 {
		return 0, fmt.Errorf("%w: %s %q: want a number of bytes from 1 to %d", ErrOption, what, val, int64(math.MaxInt64))
	}
	return n, nil
}

// ParsePartition reads one -p specification as mkimg reads it:
// TYPE[/LABEL]::SIZE[:[+]OFFSET], TYPE[/LABEL]:=FILE[:[+]OFFSET],
// TYPE[/LABEL]:-CMD or "-" for an unused slot. The type must be
// non-empty, and a label, when there is a slash, too. A := partition's
// File keeps any :OFFSET, which only the file system can tell from a name
// with a colon (Partition.File).
func ParsePartition(spec string) (Partition, error) {
	if spec == "-" {
		return Partition{Unused: true}, nil
	}
	bad := func(why string) (Partition, error) {
		return Partition{}, fmt.Errorf("%w: -p %q: %s", ErrOption, spec, why)
	}
	colon := strings.IndexByte(spec, ':')
	if colon < 1 || colon+1 >= len(spec) {
		return bad("want TYPE[/LABEL]::SIZE[:[+]OFFSET], TYPE[/LABEL]:=FILE[:[+]OFFSET], TYPE[/LABEL]:-CMD or -")
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
		size, offset, hasOffset := strings.Cut(contents, ":")
		n, err := ParseSize(size)
		if err != nil {
			return bad(err.Error())
		}
		p.Size = n
		if hasOffset {
			if p.Offset, p.Absolute, err = parseOffset(offset); err != nil {
				return bad(err.Error())
			}
		}
	case '=':
		if contents == "" {
			return bad("no file name")
		}
		p.File = contents
	case '-':
		if contents == "" {
			return bad("no command")
		}
		p.Command = contents
	default:
		return bad("want :: (size), := (file) or :- (command) after the type")
	}
	return p, nil
}

// parseOffset reads a partition's [+]OFFSET: absolute without the plus.
func parseOffset(s string) (offset uint64, absolute bool, err error) {
	rest, relative := strings.CutPrefix(s, "+")
	n, err := ParseSize(rest)
	if err != nil {
		return 0, false, fmt.Errorf("offset: %w", err)
	}
	return n, !relative, nil
}

// ParseSize reads a number as mkimg reads sizes (expand_number(3)): an
// unsigned integer in decimal, 0x hexadecimal or 0 octal, then at most
// one suffix b, k, m, g, t, p or e (either case) multiplying it by a
// power of 1024. The grammar is imgkit/internal/number's ExpandNumber, beside
// makefs's.
func ParseSize(s string) (uint64, error) {
	n, err := number.ExpandNumber(s)
	if errors.Is(err, number.ErrNumberRange) {
		return 0, fmt.Errorf("number %q too large", s)
	}
	if err != nil {
		return 0, fmt.Errorf("bad number %q", s)
	}
	return n, nil
}
