package msdos

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/makefs/fsopt"
)

// Options are the makefs -t msdos options: the -o fs-options of
// newfs_msdos(8) as typed fields, plus the global makefs options that
// apply to FAT. The zero value makes a volume with makefs's defaults and,
// when no size is given, the smallest image that holds the tree. Where 0
// or "" is a setting of its own, the field is a pointer and nil means the
// default: HiddenSectors set, to 0 too, together with DriveHeads,
// SectorsPerTrack, BytesPerSector and Sectors makes those the whole
// geometry, as newfs_msdos takes them, without the defaults it uses for an
// image file (63 sectors per track, 255 heads, the cluster size from the
// size).
type Options struct {
	FATType           int     // fat_type (F): 12, 16 or 32; 0 chooses from the size
	SectorsPerCluster int     // sectors_per_cluster (c); 0 chooses from the size
	BlockSize         int     // block_size (b): cluster size in bytes; 0 chooses from the size
	VolumeLabel       string  // volume_label (L); "" writes "NO NAME" and no label entry
	VolumeID          *uint32 // volume_id (I); nil takes it from Timestamp, else from the tree (see DETAILS.md)
	OEMString         *string // OEM_string (O); nil means "BSD4.4  "
	BytesPerSector    int     // bytes_per_sector (S): 512, 1024, 2048 or 4096; 0 means 512
	MediaDescriptor   uint8   // media_descriptor (m): 0xf0 or more; 0 means 0xf0, or 0xf8 with hidden sectors
	ReservedSectors   int     // reserved_sectors (r); 0 chooses by FAT type and pads to align the data area
	NumFATs           int     // num_FAT (n); 0 means 2
	HiddenSectors     *uint32 // hidden_sectors (o); nil means 0 (see below)
	DirectoryEntries  int     // directory_entries (e): FAT12/16 root entries; 0 means 512
	Floppy            string  // floppy (f): 160, 180, 320, 360, 640, 720, 1200, 1232, 1440, 2880
	Bootstrap         string  // bootstrap (B): boot sector(s) file; a bare name is looked up in /boot
	InfoSector        int     // info_sector (i): FAT32 FSInfo sector; 0 means the first free one
	BackupSector      int     // backup_sector (k): FAT32 backup boot sector; 0 means the next free one
	SectorsPerFAT     uint32  // sectors_per_fat (a); 0 means as many as the clusters need
	Sectors           uint64  // size (s): file-system size in sectors; 0 means from the image size
	CreateSize        int64   // create_size (C): image file size in bytes
	SectorsPerTrack   int     // sectors_per_track (u); 0 means 63
	DriveHeads        int     // drive_heads (h); 0 means 255
	Align             bool    // align (A): warn when the data area cannot be cluster-aligned (it is aligned whenever ReservedSectors is 0)

	// Global makefs options.
	Offset  int64 // -O and offset (@): bytes before the volume in the image file
	Size    int64 // -s: image size in bytes (sets MinSize and MaxSize)
	MinSize int64 // -M (makefs -M is the minimum size)
	MaxSize int64 // -m (makefs -m is the maximum size)

	// Timestamp (-T, and -o timestamp), when not the zero time, is the
	// time of every file and directory and of the volume: the entry points
	// pass it to the source's tree (fstree.Options) and write it for the
	// volume label entry, and the default volume id follows from it. With
	// ClampTimes it is only an upper bound, the rule of SOURCE_DATE_EPOCH:
	// later times become it, earlier ones are kept.
	Timestamp  time.Time
	ClampTimes bool

	// Cache holds the block cache's options (imgkit/bcache) for the image
	// file WriteFile writes; nil means the defaults. Write and Build build
	// the image in memory, where the options of an image file (mode, sync,
	// permission, bulk copy) do not apply.
	Cache *bcache.Options

	// Warn receives one line per skipped node (symlink, device, fifo,
	// socket, extra hard link) and per parameter warning; nil discards.
	Warn io.Writer

	bootstrap []byte // contents of Bootstrap, read by the entry points
}

// optionTable lists the -o options of makefs -t msdos sorted bytewise by
// name, the order in which makefs(8) documents them. ParseOption and
// OptionHelp both read it.
var optionTable = fsopt.Table[Options]{
	{Option: fsopt.Option{Key: "OEM_string", Letter: "O", Field: "OEMString", Default: `"BSD4.4"`,
		Usage: "OEM name in the boot sector, up to 8 characters"},
		Set: func(o *Options, key, value string) error { o.OEMString = &value; return nil }},
	{Option: fsopt.Option{Key: "align", Letter: "A", Field: "Align", Default: "off",
		Usage: "warn when the data area cannot be aligned to a cluster (it is aligned whenever reserved_sectors is not given)"},
		Set: func(o *Options, key, value string) error {
			// A boolean option of makefs: any value, or none, turns it on.
			o.Align = true
			return nil
		}},
	{Option: fsopt.Option{Key: "backup_sector", Letter: "k", Field: "BackupSector", Default: "after the info sector",
		Usage: "FAT32 sector of the backup boot sector"},
		Set: func(o *Options, key, value string) error { return setPos(&o.BackupSector, key, value, math.MaxUint16) }},
	{Option: fsopt.Option{Key: "block_size", Letter: "b", Field: "BlockSize", Default: "from the size",
		Usage: "cluster size in bytes"},
		Set: func(o *Options, key, value string) error { return setPos(&o.BlockSize, key, value, math.MaxUint32) }},
	{Option: fsopt.Option{Key: "bootstrap", Letter: "B", Field: "Bootstrap", Default: "newfs_msdos's boot stub",
		Usage: "file of boot sectors to start the volume with; a bare name is looked up in /boot"},
		Set: func(o *Options, key, value string) error {
			if value == "" {
				// newfs_msdos would open /boot/ and refuse it; "" is
				// Options' "none".
				return fmt.Errorf("%w: bootstrap: empty file name", ErrOption)
			}
			o.Bootstrap = value
			return nil
		}},
	{Option: fsopt.Option{Key: "bytes_per_sector", Letter: "S", Field: "BytesPerSector", Default: "512",
		Usage: "sector size: 512, 1024, 2048 or 4096"},
		Set: func(o *Options, key, value string) error {
			v, err := pos(key, value, math.MaxUint16)
			if err == nil && v != 512 && v != 1024 && v != 2048 && v != 4096 {
				err = fmt.Errorf("%w: bytes_per_sector %d: must be 512, 1024, 2048 or 4096", ErrOption, v)
			}
			if err == nil {
				o.BytesPerSector = int(v)
			}
			return err
		}},
	{Option: fsopt.Option{Key: "create_size", Letter: "C", Field: "CreateSize", Default: "the volume's size",
		Usage: "size of the image file in bytes"},
		Set: func(o *Options, key, value string) error {
			v, err := num(key, value, math.MaxInt64)
			if err == nil {
				o.CreateSize = int64(v)
			}
			return err
		}},
	{Option: fsopt.Option{Key: "directory_entries", Letter: "e", Field: "DirectoryEntries", Default: "512",
		Usage: "entries of the FAT12/16 root directory"},
		Set: func(o *Options, key, value string) error {
			return setPos(&o.DirectoryEntries, key, value, math.MaxUint16)
		}},
	{Option: fsopt.Option{Key: "drive_heads", Letter: "h", Field: "DriveHeads", Default: "255",
		Usage: "drive heads in the BPB"},
		Set: func(o *Options, key, value string) error { return setPos(&o.DriveHeads, key, value, math.MaxUint16) }},
	{Option: fsopt.Option{Key: "fat_type", Letter: "F", Field: "FATType", Default: "from the size",
		Usage: "FAT type: 12, 16 or 32"},
		Set: func(o *Options, key, value string) error {
			v, err := rng(key, value, 12, 255)
			if err == nil && v != 12 && v != 16 && v != 32 {
				err = fmt.Errorf("%w: fat_type %d: must be 12, 16 or 32", ErrOption, v)
			}
			if err == nil {
				o.FATType = int(v)
			}
			return err
		}},
	{Option: fsopt.Option{Key: "floppy", Letter: "f", Field: "Floppy", Default: "none",
		Usage: "standard floppy format: 160, 180, 320, 360, 640, 720, 1200, 1232, 1440 or 2880 (KiB)"},
		Set: func(o *Options, key, value string) error {
			if _, ok := floppies[value]; !ok {
				return fmt.Errorf("%w: floppy %q: must be one of 160, 180, 320, 360, 640, 720, 1200, 1232, 1440, 2880", ErrOption, value)
			}
			o.Floppy = value
			return nil
		}},
	{Option: fsopt.Option{Key: "hidden_sectors", Letter: "o", Field: "HiddenSectors", Default: "0",
		Usage: "sectors before the volume on its disk, in the BPB"},
		Set: func(o *Options, key, value string) error {
			v, err := num(key, value, math.MaxUint32)
			if err == nil {
				o.HiddenSectors = new(uint32(v))
			}
			return err
		}},
	{Option: fsopt.Option{Key: "info_sector", Letter: "i", Field: "InfoSector", Default: "1",
		Usage: "FAT32 sector of the FSInfo sector"},
		Set: func(o *Options, key, value string) error { return setPos(&o.InfoSector, key, value, math.MaxUint16) }},
	{Option: fsopt.Option{Key: "media_descriptor", Letter: "m", Field: "MediaDescriptor", Default: "0xf0 (0xf8 with hidden sectors)",
		Usage: "media descriptor byte, 0xf0 or more"},
		Set: func(o *Options, key, value string) error {
			v, err := num(key, value, 255)
			if err == nil && v == 0 {
				// 0 is Options' "default"; newfs_msdos rejects it.
				err = &paramError{msg: "media_descriptor 0 is illegal (must be 0xf0 or more)"}
			}
			if err == nil {
				o.MediaDescriptor = uint8(v)
			}
			return err
		}},
	{Option: fsopt.Option{Key: "num_FAT", Letter: "n", Field: "NumFATs", Default: "2",
		Usage: "number of FATs"},
		Set: func(o *Options, key, value string) error { return setPos(&o.NumFATs, key, value, 255) }},
	{Option: fsopt.Option{Key: "offset", Letter: "@", Field: "Offset", Default: "0",
		Usage: "bytes of the image file before the volume (as -O)"},
		Set: func(o *Options, key, value string) error {
			v, err := num(key, value, math.MaxInt64)
			if err == nil {
				o.Offset = int64(v)
			}
			return err
		}},
	{Option: fsopt.Option{Key: "reserved_sectors", Letter: "r", Field: "ReservedSectors", Default: "1 (FAT12/16), 16 KiB (FAT32), padded to align the data area",
		Usage: "reserved sectors before the first FAT"},
		Set: func(o *Options, key, value string) error {
			return setPos(&o.ReservedSectors, key, value, math.MaxUint16)
		}},
	{Option: fsopt.Option{Key: "sectors_per_cluster", Letter: "c", Field: "SectorsPerCluster", Default: "from the size",
		Usage: "cluster size in sectors, a power of 2 up to 128"},
		Set: func(o *Options, key, value string) error { return setPos(&o.SectorsPerCluster, key, value, 255) }},
	{Option: fsopt.Option{Key: "sectors_per_fat", Letter: "a", Field: "SectorsPerFAT", Default: "as the clusters need",
		Usage: "sectors of each FAT"},
		Set: func(o *Options, key, value string) error {
			v, err := pos(key, value, math.MaxUint32)
			if err == nil {
				o.SectorsPerFAT = uint32(v)
			}
			return err
		}},
	{Option: fsopt.Option{Key: "sectors_per_track", Letter: "u", Field: "SectorsPerTrack", Default: "63",
		Usage: "sectors per track in the BPB"},
		Set: func(o *Options, key, value string) error {
			return setPos(&o.SectorsPerTrack, key, value, math.MaxUint16)
		}},
	{Option: fsopt.Option{Key: "size", Letter: "s", Field: "Sectors", Default: "from the image size",
		Usage: "size of the file system in sectors"},
		Set: func(o *Options, key, value string) error {
			v, err := pos(key, value, math.MaxUint32)
			if err == nil {
				o.Sectors = v
			}
			return err
		}},
	{Option: fsopt.Option{Key: "timestamp", Letter: "T", Field: "Timestamp", Default: "the files' own times",
		Usage: "seconds since the Epoch for every time on the volume (as -T)"},
		Set: func(o *Options, key, value string) error {
			v, err := num(key, value, math.MaxInt64)
			if err == nil {
				o.Timestamp, o.ClampTimes = time.Unix(int64(v), 0).UTC(), false
			}
			return err
		}},
	{Option: fsopt.Option{Key: "volume_id", Letter: "I", Field: "VolumeID", Default: "from -T, else a hash of the tree and the options",
		Usage: "volume serial number (BS_VolID)"},
		Set: func(o *Options, key, value string) error {
			v, err := num(key, value, math.MaxUint32)
			if err == nil {
				o.VolumeID = new(uint32(v))
			}
			return err
		}},
	{Option: fsopt.Option{Key: "volume_label", Letter: "L", Field: "VolumeLabel", Default: `"NO NAME"`,
		Usage: "volume label, up to 11 characters"},
		Set: func(o *Options, key, value string) error {
			if value == "" {
				// newfs_msdos refuses an empty label; "" is Options' "none".
				return fmt.Errorf("%w: volume_label: empty (1 to 11 characters)", ErrOption)
			}
			o.VolumeLabel = value
			return nil
		}},
}

// OptionHelp describes every -o option of makefs -t msdos, sorted bytewise
// by name as makefs(8) documents them: its name, its one-letter key, the
// field of Options it sets, its default and its meaning. ParseOption
// accepts exactly these names and letters.
func OptionHelp() []fsopt.Option { return optionTable.Help() }

// num parses the value of option key as a makefs number from 0 to maxv
// (fsopt.Number: base 10, suffixes, products; no value means 1).
func num(key, value string, maxv uint64) (uint64, error) {
	return rng(key, value, 0, maxv)
}

// rng parses the value as num does, from minv to maxv.
func rng(key, value string, minv, maxv uint64) (uint64, error) {
	v, err := fsopt.Number(ErrOption, key, value, int64(minv), int64(min(maxv, math.MaxInt64)))
	return uint64(v), err
}

// pos parses the value as a makefs number from 1 to maxv.
func pos(key, value string, maxv uint64) (uint64, error) {
	return rng(key, value, 1, maxv)
}

// setPos parses the value as pos does and stores it in *p.
func setPos(p *int, key, value string, maxv uint64) error {
	v, err := pos(key, value, maxv)
	if err == nil {
		*p = int(v)
	}
	return err
}

// ParseOption sets one -o option on o, by its name or one-letter key, as
// makefs -t msdos -o key=value does (OptionHelp lists them). Numbers are
// read as makefs reads them (fsopt.ParseNumber: base 10, so 0x10 is 0
// times 10, with suffixes and x products), a numeric key without a value
// is 1, and align is on whatever its value. Errors name the
// option and wrap ErrOption, except media_descriptor=0, which newfs_msdos
// rejects as a parameter (ErrParams) and Options reads as the default.
func ParseOption(o *Options, key, value string) error {
	return optionTable.Parse(o, key, value, unknownOption)
}

// unknownOption is ParseOption's error for a key that no option has.
func unknownOption(key string) error {
	return fmt.Errorf("%w: unknown msdos option %q", ErrOption, key)
}

// Files returns the host files that WriteFile, Write and Build read with
// o besides the source tree: the bootstrap file, if Bootstrap names one,
// found as bootstrapPath finds it. A catalogue plans an image's inputs
// with it.
func (o *Options) Files() []string {
	if o.Bootstrap == "" {
		return nil
	}
	return []string{bootstrapPath(o.Bootstrap)}
}

// bootstrapPath returns the file that Options.Bootstrap = name reads: a
// name without a slash is looked up in /boot, as newfs_msdos does; any
// other name is a path, taken as it is (relative to the working
// directory).
func bootstrapPath(name string) string {
	if !strings.Contains(name, "/") {
		return "/boot/" + name
	}
	return name
}

// loadBootstrap reads the bootstrap file named by o.Bootstrap (see
// bootstrapPath).
func (o *Options) loadBootstrap() error {
	if o.Bootstrap == "" {
		return nil
	}
	name := bootstrapPath(o.Bootstrap)
	st, err := os.Stat(name)
	if err != nil {
		return fmt.Errorf("msdos: Options.Bootstrap: %w", err)
	}
	if !st.Mode().IsRegular() || st.Size() > 0xffff*maxBytesPerSector {
		return fmt.Errorf("%w: Options.Bootstrap %s: inappropriate file type or size", ErrParams, name)
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("msdos: Options.Bootstrap: %w", err)
	}
	o.bootstrap = b
	return nil
}
