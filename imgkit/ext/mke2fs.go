package ext

import (
	"cmp"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// Mke2fs is a parsed mke2fs(8) command line: the Options it asks for, the
// tree of -d and the device (the image file), with the index of each in
// the command line so that a catalogue can plan them.
type Mke2fs struct {
	Options Options
	// Dir is -d's directory, DirArg its index in the arguments (0 without
	// -d: the file system then holds only lost+found).
	Dir    string
	DirArg int
	// Device is the image file, DeviceArg its index in the arguments.
	Device    string
	DeviceArg int
	// TimestampArg is the argument of --timestamp as given ("" without).
	TimestampArg string
	// EnvTime is true when the times come from SOURCE_DATE_EPOCH.
	EnvTime bool
	// Metadata is fixturegen's --metadata=git|host (makefs.ParseMetadata's
	// words): the owners and modes -d's tree is read with.
	Metadata fstree.Metadata
	// Warnings are the lines mke2fs would print as warnings for the
	// command line (a label cut to 16 bytes, a -T name mke2fs.conf does not
	// define, 128-byte inodes), for the caller to print.
	Warnings []string
	// Existing is true when the device is a regular file of one byte or
	// more: mke2fs writes the file system into it, keeping its other
	// bytes (UpdateFile), after discarding the file system's range,
	// which marks every inode table zeroed (unless -E nodiscard or -K).
	Existing bool

	extended  string // every -E's options, joined by commas
	noDiscard bool   // -E nodiscard or -K
}

// Mke2fsUsageError is an error of a command line's syntax (exit status 2).
type Mke2fsUsageError struct{ Msg string }

func (e *Mke2fsUsageError) Error() string { return e.Msg }

func usage(format string, a ...any) error {
	return &Mke2fsUsageError{Msg: "mke2fs: " + fmt.Sprintf(format, a...)}
}

// refuse reports an option the writer does not reproduce (exit status 1);
// the error wraps ErrOption.
func refuse(format string, a ...any) error {
	return &refusal{"mke2fs: " + fmt.Sprintf(format, a...)}
}

type refusal struct{ msg string }

func (r *refusal) Error() string { return r.msg }
func (r *refusal) Unwrap() error { return ErrOption }

// mke2fsArgOpts are mke2fs 1.47.4's option letters that take an argument.
const mke2fsArgOpts = "bdegiIlmoNrstCEGJLMOTUz"

// mke2fsFlagOpts are its letters that take none.
const mke2fsFlagOpts = "cjnqvDFKSV"

// fsType is what a stanza of [fs_types] in mke2fs 1.47.4's default
// mke2fs.conf sets (0 or "": nothing): -t's type and -T's usage types
// name them.
type fsType struct {
	blockSize, inodeRatio, inodeSize int
	// ext is the ext type whose features the stanza adds: ext3's
	// has_journal, ext4's list (which holds has_journal)
	ext string
	// noY2038Warning is warn_y2038_dates = 0 (hurd's)
	noY2038Warning bool
}

// fsTypes are the default mke2fs.conf's [fs_types]. largefile and
// largefile4 ask for blocksize -1, the page size, which is 4096 on
// x86-64 (and 65536 on some arm64 kernels, where mke2fs would differ):
// fixturegen takes 4096.
var fsTypes = map[string]fsType{
	"ext3":       {ext: "ext3"},
	"ext4":       {ext: "ext4"},
	"small":      {blockSize: 1024, inodeRatio: 4096},
	"floppy":     {blockSize: 1024, inodeRatio: 8192},
	"big":        {inodeRatio: 32768},
	"huge":       {inodeRatio: 65536},
	"news":       {inodeRatio: 4096},
	"largefile":  {blockSize: 4096, inodeRatio: 1048576},
	"largefile4": {blockSize: 4096, inodeRatio: 4194304},
	"hurd":       {blockSize: 4096, inodeSize: 128, noY2038Warning: true},
}

// extRank orders the ext types by the features they add to each other's.
var extRank = map[string]int{"": 0, "ext2": 0, "ext3": 1, "ext4": 2}

// applyUsageTypes applies -T's comma-separated list as mke2fs's
// parse_fs_type and its profile lookups do: the types mke2fs.conf has
// no stanza for are skipped with mke2fs's warning ("default" without
// one), each value comes from the last stanza that sets it, else from
// [defaults] (never from the size's usage type, which -T replaces), and
// -b, -i and -I win over them all. The ext types' features go in order,
// ext4's holding ext3's, so the type is the greatest named.
func (m *Mke2fs) applyUsageTypes(list string) {
	o := &m.Options
	var bs, ratio, isize int
	noWarn := false
	for _, name := range strings.Split(list, ",") {
		t, ok := fsTypes[name]
		if !ok {
			if name != "" && name != "default" {
				m.Warnings = append(m.Warnings, fmt.Sprintf("the fs_type %s is not defined in mke2fs.conf", name))
			}
			continue
		}
		if extRank[t.ext] > extRank[o.Type] {
			o.Type = t.ext
		}
		bs = cmp.Or(t.blockSize, bs)
		ratio = cmp.Or(t.inodeRatio, ratio)
		isize = cmp.Or(t.inodeSize, isize)
		noWarn = noWarn || t.noY2038Warning
	}
	o.BlockSize = cmp.Or(o.BlockSize, bs, 4096)
	o.InodeRatio = cmp.Or(o.InodeRatio, ratio, 16384)
	o.InodeSize = cmp.Or(o.InodeSize, isize)
	if o.InodeSize == 128 && !noWarn {
		m.Warnings = append(m.Warnings, y2038Warning)
	}
}

// y2038Warning is the line mke2fs prints for 128-byte inodes.
const y2038Warning = "128-byte inodes cannot handle dates beyond 2038 and are deprecated"

// ParseMke2fs reads the command line of mke2fs 1.47.4 (args without the
// program's name) as prog ("mke2fs", "mkfs.ext2", "mkfs.ext3" or
// "mkfs.ext4", whose -t is implied) runs it, for what the writer
// reproduces: -t, -b, -C (with bigalloc), -d, -E hash_seed=, root_owner=0:0 and quotatype=, -F, -I, -i,
// -j, -L, -m, -O with the default features, -q, -T usage types (the
// default mke2fs.conf's [fs_types], in a list), -U, the
// device and the size (with mke2fs's suffixes), and fixturegen's own
// --timestamp=T (every time T, as makefs -T; seconds or a file's time,
// relative to dir). Without --timestamp, getenv's SOURCE_DATE_EPOCH
// clamps the times as mke2fs does. Anything else is refused with one line
// naming the option: a *Mke2fsUsageError for syntax, an error wrapping
// ErrOption for what is not written.
func ParseMke2fs(prog string, args []string, dir string, getenv func(string) string) (*Mke2fs, error) {
	m := &Mke2fs{}
	o := &m.Options
	switch prog {
	case "mkfs.ext2", "mkfs.ext3", "mkfs.ext4":
		o.Type = strings.TrimPrefix(prog, "mkfs.")
	}
	var operands []int
	var typeArg, sizeArg string
	var usageArg *string // -T's, nil without one
	journal := false
	uuidSet, seedSet := false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			for j := i + 1; j < len(args); j++ {
				operands = append(operands, j)
			}
			break
		}
		if strings.HasPrefix(a, "--") {
			name, val, ok := strings.Cut(a[2:], "=")
			if name == "metadata" && ok {
				switch val {
				case "git":
					m.Metadata = fstree.MetadataGit
				case "host":
					m.Metadata = fstree.MetadataHost
				default:
					return nil, usage("--metadata=%s: want git or host", val)
				}
				continue
			}
			if name != "timestamp" {
				return nil, usage("unrecognized option '%s'", a)
			}
			if !ok {
				if i+1 >= len(args) {
					return nil, usage("option '--timestamp' requires an argument")
				}
				i++
				val = args[i]
			}
			m.TimestampArg = val
			continue
		}
		if len(a) < 2 || a[0] != '-' {
			operands = append(operands, i)
			continue
		}
		for k := 1; k < len(a); k++ {
			c := a[k]
			if strings.IndexByte(mke2fsFlagOpts, c) >= 0 {
				switch c {
				case 'F', 'q', 'v':
					// nothing is printed: -v's listing is not reproduced
				case 'K':
					m.noDiscard = true // deprecated for -E nodiscard
				case 'j':
					journal = true
				case 'c':
					return nil, refuse("-c: there is no bad block scan of an image file")
				default:
					return nil, refuse("-%c is not supported by fixturegen mke2fs", c)
				}
				continue
			}
			if strings.IndexByte(mke2fsArgOpts, c) < 0 {
				return nil, usage("invalid option -- '%c'", c)
			}
			arg, argi := a[k+1:], i
			if arg == "" {
				if i+1 >= len(args) {
					return nil, usage("option requires an argument -- '%c'", c)
				}
				i++
				arg, argi = args[i], i
			}
			if err := m.option(c, arg, argi, &typeArg, &usageArg, &journal, &uuidSet); err != nil {
				return nil, err
			}
			break
		}
	}
	if err := m.extendedOptions(m.extended, &seedSet); err != nil {
		return nil, err
	}
	givenBS := o.BlockSize // -b's, before -T's
	if typeArg != "" {
		o.Type = typeArg
	}
	if journal {
		switch o.Type {
		case "", "ext2", "ext3":
			o.Type = "ext3"
		}
	}
	switch o.Type {
	case "", "ext2", "ext3", "ext4":
	default:
		return nil, refuse("-t %s: want ext2, ext3 or ext4", o.Type)
	}
	if usageArg != nil {
		m.applyUsageTypes(*usageArg)
	} else if o.InodeSize == 128 {
		m.Warnings = append(m.Warnings, y2038Warning)
	}
	if _, err := newFeatures(o); err != nil {
		// "ext: bad option: Features "x": why" or "...: Features: why"
		msg := strings.TrimPrefix(err.Error(), ErrOption.Error()+": Features")
		if _, after, ok := strings.Cut(msg, "\": "); ok && strings.HasPrefix(msg, " \"") {
			msg = after
		}
		return nil, refuse("-O %s: %s", strings.Join(o.Features, ","), strings.TrimPrefix(msg, ": "))
	}
	if ft, _ := newFeatures(o); o.ClusterSize != 0 && !ft.bigalloc {
		return nil, refuse("-C %d: specifying a cluster size requires the bigalloc feature", o.ClusterSize)
	}
	switch len(operands) {
	case 0:
		return nil, usage("give the device (the image file) and its size")
	case 1, 2:
	default:
		return nil, usage("too many arguments: %s", args[operands[2]])
	}
	m.DeviceArg = operands[0]
	m.Device = args[m.DeviceArg]
	if len(operands) == 2 {
		sizeArg = args[operands[1]]
		n, err := parseBlocks(sizeArg, o.BlockSize)
		if err != nil {
			return nil, err
		}
		o.Size = n
	}
	device := m.Device
	if !filepath.IsAbs(device) {
		device = filepath.Join(dir, device)
	}
	if fi, err := os.Stat(device); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
		// mke2fs discards a device of a size (a file that is not empty):
		// the unix I/O manager punches the file system's range out of a
		// file, which then reads as zeros, so the inode tables are
		// marked zeroed
		m.Existing = true
		if !m.noDiscard {
			o.ZeroedInodeTables = true
		}
		if len(operands) == 1 {
			o.Size = deviceSize(fi.Size(), givenBS)
			if o.Offset != 0 {
				offsetFromDevice(o)
			}
		}
	} else if len(operands) == 1 {
		return nil, usage("%s: give the size of the image after the device", m.Device)
	}
	if m.TimestampArg != "" {
		ts, err := fstree.ParseTimestamp(dir, m.TimestampArg)
		if err != nil {
			return nil, usage("--timestamp: %v", err)
		}
		o.Timestamp = ts
	} else {
		eo, err := fstree.OptionsFromEnv(getenv)
		if err != nil {
			return nil, fmt.Errorf("mke2fs: %w", err)
		}
		o.Timestamp, o.ClampTimes = eo.Timestamp, eo.ClampTimes
		m.EnvTime = eo.ClampTimes
	}
	if err := o.check(); err != nil {
		return nil, fmt.Errorf("mke2fs: %w", err)
	}
	return m, nil
}

// deviceSize is the size mke2fs gives a file system that fills a device
// of n bytes: whole blocks of -b's size (1024 without -b), and with
// blocks smaller than the page (4096 bytes on x86-64) whole pages.
func deviceSize(n int64, blockSize int) int64 {
	unit := int64(max(blockSize, 4096))
	return n / unit * unit
}

// offsetFromDevice sizes the file system of a device of o.Size bytes
// that starts o.Offset bytes in, as mke2fs does without a size: the
// usage type (block size and inode ratio) is the whole device's, and
// the offset's whole blocks come off the file system.
func offsetFromDevice(o *Options) {
	bs := o.BlockSize
	if bs == 0 {
		bs, _ = sizeType(uint64(o.Size)/1024, 1024)
	}
	if o.InodeRatio == 0 {
		_, o.InodeRatio = sizeType(uint64(o.Size)/uint64(bs), bs)
	}
	o.BlockSize = bs
	o.Size = o.Size/int64(bs)*int64(bs) - o.Offset/int64(bs)*int64(bs)
}

// option applies option c with its argument arg (at index argi).
func (m *Mke2fs) option(c byte, arg string, argi int, typeArg *string, usageArg **string, journal, uuidSet *bool) error {
	o := &m.Options
	num := func() (int, error) {
		n, err := strconv.ParseInt(arg, 0, 64)
		if err != nil || n < 0 || n > math.MaxInt32 {
			return 0, usage("-%c: invalid argument %q", c, arg)
		}
		return int(n), nil
	}
	var err error
	switch c {
	case 't':
		*typeArg = arg
	case 'b':
		// parse_num_blocks2 in bytes: a number, or with a suffix s, k,
		// m, g or t (-b 4k)
		n, perr := parseBlocks(arg, 1)
		if perr != nil || n > math.MaxInt32 {
			return usage("-b: invalid argument %q", arg)
		}
		if n < 1024 || n > 65536 {
			return usage("invalid block size - %s", arg)
		}
		// mke2fs takes the power of 2 at or below it (its log2 of
		// the size in KiB) and keeps the number as given for the
		// inode ratio's floor, which is then the block size itself
		// up to 4096, below every usage type's ratio; past that the
		// number would decide it
		o.BlockSize = 1 << (bits.Len64(uint64(n)) - 1)
		if n > 4096 && int64(o.BlockSize) != n {
			return refuse("-b %s: past 4096, the block sizes written are the powers of 2 to 65536", arg)
		}
	case 'd':
		m.Dir, m.DirArg = arg, argi
	case 'I':
		if o.InodeSize, err = num(); err != nil {
			return err
		}
		if o.InodeSize != 128 && o.InodeSize != 256 && o.InodeSize != 512 && o.InodeSize != 1024 {
			return refuse("-I %s: the inode sizes written are 128, 256, 512 and 1024", arg)
		}
	case 'i':
		if o.InodeRatio, err = num(); err != nil {
			return err
		}
		if o.InodeRatio < 1024 || o.InodeRatio > 65536*1024 {
			return usage("invalid inode ratio %s (min 1024/max 67108864)", arg)
		}
	case 'L':
		if len(arg) > 16 {
			// mke2fs cuts it to s_volume_name's 16 bytes, and says so
			arg = arg[:16]
			m.Warnings = append(m.Warnings, fmt.Sprintf("label too long; truncated to '%s', as mke2fs truncates it", arg))
		}
		o.Label = arg
	case 'm':
		p, perr := strconv.ParseFloat(arg, 64)
		if perr != nil || p < 0 || p > 50 {
			return usage("invalid reserved blocks percent - %s", arg)
		}
		o.ReservedPercent = &p
	case 'O':
		for _, f := range strings.Split(arg, ",") {
			if f != "" {
				o.Features = append(o.Features, f)
			}
		}
	case 'C':
		// parse_num_blocks2 with no block size: bytes, or K, M, G, T
		n, err := parseBlocks(arg, 1)
		if err != nil || n <= 1024 || n > 1<<29 {
			return usage("invalid cluster size - %s", arg)
		}
		o.ClusterSize = int(n)
	case 'T':
		*usageArg = &arg
	case 'U':
		id, err := parseUUID(arg)
		if err != nil {
			return refuse("-U %s: %v", arg, err)
		}
		o.UUID, *uuidSet = id, true
	case 'E':
		if m.extended != "" {
			m.extended += "," // mke2fs joins every -E's options
		}
		m.extended += arg
	case 'N':
		// 0 is mke2fs's default, the count -i's ratio gives (Buildroot
		// passes -N 0 unless told a count)
		n, err := strconv.ParseUint(arg, 0, 64)
		if err != nil || n > math.MaxUint32 {
			return usage("-N %s: invalid inodes count (want 0 to 2^32-1)", arg)
		}
		o.InodeCount = n
	case 'g':
		if o.BlocksPerGroup, err = num(); err != nil {
			return err
		}
		if o.BlocksPerGroup%8 != 0 || o.BlocksPerGroup < 256 {
			return usage("-g %s: blocks per group must be a multiple of 8, at least 256", arg)
		}
	case 'G':
		if o.FlexGroups, err = num(); err != nil {
			return err
		}
		if o.FlexGroups < 1 || o.FlexGroups&(o.FlexGroups-1) != 0 {
			return usage("-G %s: flex_bg size must be a power of 2", arg)
		}
	case 'J':
		for _, e := range strings.Split(arg, ",") {
			k, v, _ := strings.Cut(e, "=")
			if k != "size" {
				return refuse("-J %s is not supported by fixturegen mke2fs (only size=)", k)
			}
			if o.JournalMiB, err = strconv.Atoi(v); err != nil || o.JournalMiB <= 0 {
				return usage("-J size=%s: invalid journal size", v)
			}
		}
		*journal = true
	case 'M':
		// mke2fs's strncpy into s_last_mounted keeps 64 bytes, no more
		o.LastMounted = arg[:min(len(arg), 64)]
	case 'e':
		switch arg {
		case "continue":
			o.Errors = 1
		case "remount-ro":
			o.Errors = 2
		case "panic":
			o.Errors = 3
		default:
			return usage("bad error behavior - %s", arg)
		}
	case 'o':
		if arg != "linux" && arg != "Linux" {
			return refuse("-o %s: only the Linux creator OS is written", arg)
		}
	case 'r':
		if arg != "1" {
			return refuse("-r %s: only revision 1 is written", arg)
		}
	default:
		return refuse("-%c is not supported by fixturegen mke2fs", c)
	}
	return nil
}

// extendedOptions applies -E's comma-separated options.
func (m *Mke2fs) extendedOptions(arg string, seedSet *bool) error {
	o := &m.Options
	for _, e := range strings.Split(arg, ",") {
		k, v, hasVal := strings.Cut(e, "=")
		switch k {
		case "":
		case "hash_seed":
			id, err := parseUUID(v)
			if err != nil {
				return refuse("-E hash_seed=%s: %v", v, err)
			}
			o.HashSeed, *seedSet = id, true
		case "root_owner":
			u, g, ok := strings.Cut(v, ":")
			uid, err1 := strconv.ParseUint(u, 0, 32)
			gid, err2 := strconv.ParseUint(g, 0, 32)
			if !ok || err1 != nil || err2 != nil {
				return refuse("-E root_owner=%s: want UID:GID (without a value mke2fs takes its own user's, which would make other bytes for each user)", v)
			}
			o.RootUID, o.RootGID = uint32(uid), uint32(gid)
		case "stride", "stripe_width", "stripe-width":
			n, err := strconv.ParseUint(v, 0, 32)
			if err != nil {
				return usage("-E %s: invalid %s parameter: %s", e, k, v)
			}
			if k == "stride" {
				o.Stride = uint32(n)
			} else {
				o.StripeWidth = uint32(n)
			}
		case "lazy_itable_init", "assume_storage_prezeroed":
			n := uint64(1)
			if v != "" {
				var err error
				if n, err = strconv.ParseUint(v, 0, 32); err != nil {
					return usage("-E %s: invalid value %s", k, v)
				}
			}
			if k == "lazy_itable_init" {
				o.ZeroedInodeTables = n == 0
			} else {
				o.ZeroedInodeTables = n != 0
			}
		case "offset":
			n, err := strconv.ParseInt(v, 0, 64)
			if err != nil || n < 0 {
				return usage("-E offset=%s: invalid offset", v)
			}
			o.Offset = n
		case "num_backup_sb":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > 2 {
				return usage("-E num_backup_sb=%s: want 0, 1 or 2", v)
			}
			o.NumBackupSB = &n
		case "packed_meta_blocks":
			// bare: on; with "=", mke2fs's strtoul of the value, so an
			// empty one is 0
			n := uint64(1)
			if strings.Contains(e, "=") {
				var err error
				if n, err = strconv.ParseUint(cmp.Or(v, "0"), 0, 32); err != nil {
					return usage("-E %s: invalid value %s", k, v)
				}
			}
			o.PackedMetaBlocks = n != 0
		case "no_copy_xattrs":
			o.NoCopyXattrs = true
		case "quotatype":
			// parse_quota_types: words split at ':' (and ',', which -E
			// has taken already), from no type each time
			if !hasVal {
				return usage("-E quotatype: give the quota types (usrquota, grpquota, prjquota)")
			}
			o.QuotaTypes = []string{}
			for _, q := range strings.Split(v, ":") {
				if q != "" {
					o.QuotaTypes = append(o.QuotaTypes, q)
				}
			}
			if _, err := quotaTypeBits(o.QuotaTypes); err != nil {
				return usage("-E quotatype=%s: Failed to parse quota type", v)
			}
		case "discard", "nodiscard":
			m.noDiscard = k == "nodiscard"
		case "lazy_journal_init":
			// no byte of an image file depends on it
		default:
			return refuse("-E %s is not supported by fixturegen mke2fs (only hash_seed, root_owner, offset, num_backup_sb, packed_meta_blocks, quotatype, stride, stripe_width, lazy_itable_init, assume_storage_prezeroed, lazy_journal_init, no_copy_xattrs, discard and nodiscard)", k)
		}
	}
	return nil
}

// parseUUID reads a UUID's 8-4-4-4-12 text, as the superblock stores it
// (in text order). The nil UUID and mke2fs's "clear", "random" and
// "time" are refused: a zero id means a derived one, and random ones
// would make other bytes on every run.
func parseUUID(s string) ([16]byte, error) {
	var id [16]byte
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return id, errors.New("want a UUID of 8-4-4-4-12 hexadecimal digits (clear, random and time are not taken)")
	}
	b, err := hex.DecodeString(strings.ReplaceAll(s, "-", ""))
	if err != nil || len(b) != 16 {
		return id, errors.New("want a UUID of 8-4-4-4-12 hexadecimal digits")
	}
	copy(id[:], b)
	if id == ([16]byte{}) {
		return id, errors.New("the nil UUID is not written (leave the option out for a derived one)")
	}
	return id, nil
}

// parseBlocks reads mke2fs's size argument as parse_num_blocks2 does: a
// number (C's base 0) followed by an optional suffix, s for 512-byte
// sectors, K, M, G or T (either case) for powers of 1024 bytes; without
// one, blocks of -b's size (1024 bytes without -b). It returns bytes.
func parseBlocks(s string, bs int) (int64, error) {
	num, suf := s, ""
	if i := len(s) - 1; i > 0 && strings.IndexByte("sKkMmGgTt", s[i]) >= 0 {
		num, suf = s[:i], s[i:]
	}
	n, err := strconv.ParseUint(num, 0, 64)
	if err != nil {
		return 0, usage("invalid blocks '%s' on device", s)
	}
	unit := uint64(1024)
	if bs != 0 {
		unit = uint64(bs)
	}
	switch strings.ToLower(suf) {
	case "s":
		unit = 512
	case "k":
		unit = 1 << 10
	case "m":
		unit = 1 << 20
	case "g":
		unit = 1 << 30
	case "t":
		unit = 1 << 40
	}
	if n == 0 || n > math.MaxInt64/unit {
		return 0, usage("invalid blocks '%s' on device", s)
	}
	return int64(n * unit), nil
}

// Times says where the command line's times come from, for a catalogue
// that refuses bytes depending on the checkout: "" when from the tree.
func (m *Mke2fs) Times() string {
	switch {
	case m.TimestampArg != "":
		return "--timestamp"
	case m.EnvTime:
		return "SOURCE_DATE_EPOCH"
	}
	return ""
}
