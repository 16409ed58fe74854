package msdos

import (
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Options are the makefs -t msdos options: the -o fs-options of
// newfs_msdos(8) as typed fields, plus the global makefs options that
// apply to FAT. The zero value makes a volume with makefs's defaults and,
// when no size is given, the smallest image that holds the tree.
type Options struct {
	FATType            int    // fat_type (F): 12, 16 or 32; 0 chooses from the size
	SectorsPerCluster  int    // sectors_per_cluster (c)
	BlockSize          int    // block_size (b): cluster size in bytes
	VolumeLabel        string // volume_label (L)
	VolumeID           uint32 // volume_id (I), used when VolumeIDSet
	VolumeIDSet        bool
	OEMString          string // OEM_string (O), used when OEMSet; default "BSD4.4  "
	OEMSet             bool
	BytesPerSector     int   // bytes_per_sector (S): 512, 1024, 2048 or 4096; 0 means 512
	MediaDescriptor    uint8 // media_descriptor (m), used when MediaDescriptorSet
	MediaDescriptorSet bool
	ReservedSectors    int    // reserved_sectors (r)
	NumFATs            int    // num_FAT (n); 0 means 2
	HiddenSectors      uint32 // hidden_sectors (o), used when HiddenSectorsSet
	HiddenSectorsSet   bool
	DirectoryEntries   int    // directory_entries (e): FAT12/16 root entries
	Floppy             string // floppy (f): 160, 180, 320, 360, 640, 720, 1200, 1232, 1440, 2880
	Bootstrap          string // bootstrap (B): boot sector(s) file; a bare name is looked up in /boot
	InfoSector         int    // info_sector (i): FAT32 FSInfo sector
	BackupSector       int    // backup_sector (k): FAT32 backup boot sector
	SectorsPerFAT      uint32 // sectors_per_fat (a)
	Sectors            uint64 // size (s): file-system size in sectors
	CreateSize         int64  // create_size (C): image file size in bytes
	SectorsPerTrack    int    // sectors_per_track (u)
	DriveHeads         int    // drive_heads (h)
	Align              bool   // align (A): pad reserved sectors to cluster-align the root

	// Global makefs options.
	Offset  int64 // -O and offset (@): bytes before the volume in the image file
	Size    int64 // -s: image size in bytes (sets MinSize and MaxSize)
	MinSize int64 // -M (makefs -M is the minimum size)
	MaxSize int64 // -m (makefs -m is the maximum size)
	// Timestamp (-T), when set, is the time written for the volume label
	// entry and fed into the default volume id; the tree's own times are
	// expected to have been set from it already (fstree.Options).
	Timestamp *time.Time

	// Warn receives one line per skipped node (symlink, device, fifo,
	// socket, extra hard link) and per parameter warning; nil discards.
	Warn io.Writer

	bootstrap []byte // contents of Bootstrap, read by Write
}

// optionKeys pairs each one-letter key with its -o option name.
var optionKeys = [...][2]string{
	{"@", "offset"}, {"A", "align"}, {"B", "bootstrap"}, {"C", "create_size"},
	{"F", "fat_type"}, {"I", "volume_id"}, {"L", "volume_label"}, {"O", "OEM_string"},
	{"S", "bytes_per_sector"}, {"T", "timestamp"}, {"a", "sectors_per_fat"},
	{"b", "block_size"}, {"c", "sectors_per_cluster"}, {"e", "directory_entries"},
	{"f", "floppy"}, {"h", "drive_heads"}, {"i", "info_sector"}, {"k", "backup_sector"},
	{"m", "media_descriptor"}, {"n", "num_FAT"}, {"o", "hidden_sectors"},
	{"r", "reserved_sectors"}, {"s", "size"}, {"u", "sectors_per_track"},
}

// optionNames maps every -o option name and one-letter key to its name.
var optionNames = func() map[string]string {
	m := make(map[string]string, 2*len(optionKeys))
	for _, p := range optionKeys {
		m[p[0]] = p[1]
		m[p[1]] = p[1]
	}
	return m
}()

// OptionNames lists the -o option names sorted bytewise, the order in
// which makefs(8) documents them, for help output.
func OptionNames() []string {
	names := make([]string, len(optionKeys))
	for i, p := range optionKeys {
		names[i] = p[1]
	}
	slices.Sort(names)
	return names
}

// parseNumber parses a makefs option number: decimal, 0x hex or 0 octal,
// with an optional size suffix b (512), k, m, g, t, w (4) as strsuftoll
// accepts.
func parseNumber(s string) (uint64, error) {
	if s == "" {
		return 0, fmt.Errorf("empty number")
	}
	mult := uint64(1)
	switch s[len(s)-1] {
	case 'b', 'B':
		if !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
			mult, s = 512, s[:len(s)-1]
		}
	case 'k', 'K':
		mult, s = 1<<10, s[:len(s)-1]
	case 'm', 'M':
		mult, s = 1<<20, s[:len(s)-1]
	case 'g', 'G':
		mult, s = 1<<30, s[:len(s)-1]
	case 't', 'T':
		mult, s = 1<<40, s[:len(s)-1]
	case 'w', 'W':
		mult, s = 4, s[:len(s)-1]
	}
	v, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if v > math.MaxUint64/mult {
		return 0, fmt.Errorf("%q overflows", s)
	}
	return v * mult, nil
}

// ParseOption sets one -o option on o, by its name or one-letter key, as
// makefs -t msdos -o key=value does. Numbers take makefs's suffixes;
// boolean options (align) take no value or a number.
func ParseOption(o *Options, key, value string) error {
	name, ok := optionNames[key]
	if !ok {
		return fmt.Errorf("%w: unknown msdos option %q", ErrOption, key)
	}
	num := func(maxv uint64) (uint64, error) {
		v, err := parseNumber(value)
		if err != nil {
			return 0, fmt.Errorf("%w: %s: %v", ErrOption, name, err)
		}
		if v > maxv {
			return 0, fmt.Errorf("%w: %s: %d is out of range (at most %d)", ErrOption, name, v, maxv)
		}
		return v, nil
	}
	pos := func(maxv uint64) (uint64, error) {
		v, err := num(maxv)
		if err == nil && v == 0 {
			err = fmt.Errorf("%w: %s: must be at least 1", ErrOption, name)
		}
		return v, err
	}
	var err error
	var v uint64
	switch name {
	case "offset":
		v, err = num(math.MaxInt64)
		o.Offset = int64(v)
	case "align":
		if value == "" {
			o.Align = true
		} else {
			v, err = num(math.MaxUint64)
			o.Align = v != 0
		}
	case "bootstrap":
		o.Bootstrap = value
	case "create_size":
		v, err = num(math.MaxInt64)
		o.CreateSize = int64(v)
	case "fat_type":
		v, err = num(255)
		if err == nil && v != 12 && v != 16 && v != 32 {
			err = fmt.Errorf("%w: fat_type %d: must be 12, 16 or 32", ErrOption, v)
		}
		o.FATType = int(v)
	case "volume_id":
		v, err = num(math.MaxUint32)
		o.VolumeID, o.VolumeIDSet = uint32(v), true
	case "volume_label":
		o.VolumeLabel = value
	case "OEM_string":
		o.OEMString, o.OEMSet = value, true
	case "bytes_per_sector":
		v, err = pos(math.MaxUint16)
		if err == nil && v != 512 && v != 1024 && v != 2048 && v != 4096 {
			err = fmt.Errorf("%w: bytes_per_sector %d: must be 512, 1024, 2048 or 4096", ErrOption, v)
		}
		o.BytesPerSector = int(v)
	case "timestamp":
		v, err = num(math.MaxInt64)
		t := time.Unix(int64(v), 0).UTC()
		o.Timestamp = &t
	case "sectors_per_fat":
		v, err = pos(math.MaxUint32)
		o.SectorsPerFAT = uint32(v)
	case "block_size":
		v, err = pos(math.MaxUint32)
		o.BlockSize = int(v)
	case "sectors_per_cluster":
		v, err = pos(255)
		o.SectorsPerCluster = int(v)
	case "directory_entries":
		v, err = pos(math.MaxUint16)
		o.DirectoryEntries = int(v)
	case "floppy":
		if _, ok := floppies[value]; !ok {
			err = fmt.Errorf("%w: floppy %q: must be one of 160, 180, 320, 360, 640, 720, 1200, 1232, 1440, 2880", ErrOption, value)
		}
		o.Floppy = value
	case "drive_heads":
		v, err = pos(math.MaxUint16)
		o.DriveHeads = int(v)
	case "info_sector":
		v, err = pos(math.MaxUint16)
		o.InfoSector = int(v)
	case "backup_sector":
		v, err = pos(math.MaxUint16)
		o.BackupSector = int(v)
	case "media_descriptor":
		v, err = num(255)
		o.MediaDescriptor, o.MediaDescriptorSet = uint8(v), true
	case "num_FAT":
		v, err = pos(255)
		o.NumFATs = int(v)
	case "hidden_sectors":
		v, err = num(math.MaxUint32)
		o.HiddenSectors, o.HiddenSectorsSet = uint32(v), true
	case "reserved_sectors":
		v, err = pos(math.MaxUint16)
		o.ReservedSectors = int(v)
	case "size":
		v, err = pos(math.MaxUint64)
		o.Sectors = v
	case "sectors_per_track":
		v, err = pos(math.MaxUint16)
		o.SectorsPerTrack = int(v)
	}
	return err
}

// loadBootstrap reads the bootstrap file named by o.Bootstrap; a name
// without a slash is looked up in /boot, as newfs_msdos does.
func (o *Options) loadBootstrap() error {
	if o.Bootstrap == "" {
		return nil
	}
	name := o.Bootstrap
	if !strings.Contains(name, "/") {
		name = "/boot/" + name
	}
	st, err := os.Stat(name)
	if err != nil {
		return fmt.Errorf("msdos: bootstrap: %w", err)
	}
	if !st.Mode().IsRegular() || st.Size() > 0xffff*maxBytesPerSector {
		return fmt.Errorf("%w: bootstrap %s: inappropriate file type or size", ErrParams, name)
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("msdos: bootstrap: %w", err)
	}
	o.bootstrap = b
	return nil
}
