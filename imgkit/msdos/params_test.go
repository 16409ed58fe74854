package msdos

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/makefs/fsopt"
)

func TestParseOption(t *testing.T) {
	t.Parallel()
	// Every option by name and by its one-letter key.
	tested := map[string]string{}
	for _, c := range []struct {
		name, key, value string
		check            func(o *Options) bool
	}{
		{"fat_type", "F", "16", func(o *Options) bool { return o.FATType == 16 }},
		{"sectors_per_cluster", "c", "8", func(o *Options) bool { return o.SectorsPerCluster == 8 }},
		{"block_size", "b", "4k", func(o *Options) bool { return o.BlockSize == 4096 }},
		{"volume_label", "L", "MYVOL", func(o *Options) bool { return o.VolumeLabel == "MYVOL" }},
		{"volume_id", "I", "305441741", func(o *Options) bool { return o.VolumeID != nil && *o.VolumeID == 0x1234abcd }},
		{"OEM_string", "O", "MSWIN4.1", func(o *Options) bool { return o.OEMString != nil && *o.OEMString == "MSWIN4.1" }},
		{"bytes_per_sector", "S", "4096", func(o *Options) bool { return o.BytesPerSector == 4096 }},
		{"media_descriptor", "m", "248", func(o *Options) bool { return o.MediaDescriptor == 0xf8 }},
		{"reserved_sectors", "r", "0008", func(o *Options) bool { return o.ReservedSectors == 8 }},
		{"num_FAT", "n", "1", func(o *Options) bool { return o.NumFATs == 1 }},
		{"hidden_sectors", "o", "63", func(o *Options) bool { return o.HiddenSectors != nil && *o.HiddenSectors == 63 }},
		{"directory_entries", "e", "1024", func(o *Options) bool { return o.DirectoryEntries == 1024 }},
		{"floppy", "f", "1440", func(o *Options) bool { return o.Floppy == "1440" }},
		{"bootstrap", "B", "/boot/x", func(o *Options) bool { return o.Bootstrap == "/boot/x" }},
		{"info_sector", "i", "1", func(o *Options) bool { return o.InfoSector == 1 }},
		{"backup_sector", "k", "6", func(o *Options) bool { return o.BackupSector == 6 }},
		{"offset", "@", "1m", func(o *Options) bool { return o.Offset == 1<<20 }},
		{"size", "s", "2880", func(o *Options) bool { return o.Sectors == 2880 }},
		{"create_size", "C", "2m", func(o *Options) bool { return o.CreateSize == 2<<20 }},
		{"sectors_per_track", "u", "32", func(o *Options) bool { return o.SectorsPerTrack == 32 }},
		{"drive_heads", "h", "16", func(o *Options) bool { return o.DriveHeads == 16 }},
		{"align", "A", "", func(o *Options) bool { return o.Align }},
		{"sectors_per_fat", "a", "9", func(o *Options) bool { return o.SectorsPerFAT == 9 }},
		{"timestamp", "T", "86400", func(o *Options) bool { return o.Timestamp.Equal(time.Unix(86400, 0)) && !o.ClampTimes }},
	} {
		tested[c.name] = c.key
		for _, k := range []string{c.name, c.key} {
			var o Options
			if err := ParseOption(&o, k, c.value); err != nil {
				t.Errorf("%s=%s: %v", k, c.value, err)
			} else if !c.check(&o) {
				t.Errorf("%s=%s: not applied: %+v", k, c.value, o)
			}
		}
	}
	for _, o := range OptionHelp() {
		if tested[o.Key] != o.Letter {
			t.Errorf("%s (%s) is not tested by name and letter", o.Key, o.Letter)
		}
	}
	// Numbers as makefs reads them: base 10 (a leading 0 is not octal),
	// suffixes, x products; a numeric key without a value is 1; align is
	// on whatever its value.
	for _, c := range []struct {
		key, value string
		check      func(o *Options) bool
	}{
		{"reserved_sectors", "0100", func(o *Options) bool { return o.ReservedSectors == 100 }},
		{"directory_entries", "2x16", func(o *Options) bool { return o.DirectoryEntries == 32 }},
		{"size", "4k", func(o *Options) bool { return o.Sectors == 4096 }},
		{"offset", "1b", func(o *Options) bool { return o.Offset == 512 }},
		{"volume_id", "0x12345678", func(o *Options) bool { return o.VolumeID != nil && *o.VolumeID == 0 }},
		{"num_FAT", "", func(o *Options) bool { return o.NumFATs == 1 }},
		{"hidden_sectors", "", func(o *Options) bool { return o.HiddenSectors != nil && *o.HiddenSectors == 1 }},
		{"align", "0", func(o *Options) bool { return o.Align }},
	} {
		var o Options
		if err := ParseOption(&o, c.key, c.value); err != nil || !c.check(&o) {
			t.Errorf("%s=%s: error %v, options %+v", c.key, c.value, err, o)
		}
	}
	var o Options
	if err := ParseOption(&o, "media_descriptor", "0"); !errors.Is(err, ErrParams) || o.MediaDescriptor != 0 {
		t.Errorf("media_descriptor=0: error %v, MediaDescriptor %#x; want ErrParams (0 means the default)", err, o.MediaDescriptor)
	}
	for _, c := range []struct{ key, value, want string }{
		{"nosuch", "1", `unknown msdos option "nosuch"`},
		{"fat_type", "13", "must be 12, 16 or 32"},
		{"bytes_per_sector", "1000", "must be 512, 1024, 2048 or 4096"},
		{"floppy", "1000", "must be one of 160"},
		{"num_FAT", "300", "out of range"},
		{"sectors_per_cluster", "x", "illegal number"},
		{"reserved_sectors", "0", "not between 1 and 65535"},
		{"fat_type", "", "at least 12"},
		{"volume_id", "0x1234abcd", "illegal number"},
		{"num_FAT", "3x100", "out of range"},
		{"volume_label", "", "empty"},
		{"bootstrap", "", "empty file name"},
	} {
		var o Options
		err := ParseOption(&o, c.key, c.value)
		if !errors.Is(err, ErrOption) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s=%s: error %v, want %q", c.key, c.value, err, c.want)
		}
	}
}

func TestGeometryFloppies(t *testing.T) {
	t.Parallel()
	for name, f := range floppies {
		o := &Options{Floppy: name, BytesPerSector: int(f.bps)}
		g, err := computeGeometry(o, 0)
		if err != nil {
			t.Errorf("floppy %s: %v", name, err)
			continue
		}
		if g.FATType != 12 || g.TotSec != f.sectors || g.FATSz != f.fatSz || g.RootEntCnt != f.rootEnts || g.Media != f.media || g.SecPerClus != f.spc {
			t.Errorf("floppy %s: %+v", name, g)
		}
	}
}

func TestGeometryDefaults(t *testing.T) {
	t.Parallel()
	// Sizes in bytes and what newfs_msdos chooses for an image file of that
	// size (checked against freebsd-makefs): FAT type from the cluster
	// count, default cluster size from the sector count, the reserved area
	// padded so that the data area starts on a cluster boundary (at least 1
	// sector on FAT12/16, 32 on FAT32 with the FSInfo sector at 1 and the
	// backup boot sector at 2).
	for _, c := range []struct {
		size                       int64
		fat, spc, res, fsinfo, bak uint32
	}{
		{1440 << 10, 12, 1, 1, 0, 0},
		{3 << 20, 12, 8, 2, 0, 0}, // 6144 sectors: 8 per cluster, FAT12
		{15 << 20, 12, 8, 8, 0, 0},
		{32 << 20, 16, 8, 8, 0, 0},
		{256 << 20, 16, 16, 16, 0, 0},
		{1 << 30, 16, 32, 32, 0, 0},
		{4 << 30, 32, 64, 64, 1, 2},
	} {
		g, err := computeGeometry(&Options{BytesPerSector: 512}, c.size)
		if err != nil {
			t.Errorf("%d: %v", c.size, err)
			continue
		}
		if g.FATType != int(c.fat) || g.SecPerClus != c.spc || g.RsvdSecCnt != c.res || g.FSInfo != c.fsinfo || g.BkBootSec != c.bak {
			t.Errorf("%d bytes: FAT%d spc %d res %d fsinfo %d backup %d; want FAT%d spc %d res %d fsinfo %d backup %d",
				c.size, g.FATType, g.SecPerClus, g.RsvdSecCnt, g.FSInfo, g.BkBootSec, c.fat, c.spc, c.res, c.fsinfo, c.bak)
		}
		if g.Media != 0xf0 || g.SecPerTrk != 63 || g.NumHeads != 255 || g.NumFATs != 2 {
			t.Errorf("%d bytes: media %#x geometry %d/%d fats %d", c.size, g.Media, g.SecPerTrk, g.NumHeads, g.NumFATs)
		}
		if uint64(g.Clusters) < minClusters(g.FATType) || uint64(g.Clusters) > maxClusters(g.FATType) {
			t.Errorf("%d bytes: %d clusters for FAT%d", c.size, g.Clusters, g.FATType)
		}
	}
	// At 16 MiB newfs_msdos picks FAT16, and the padding leaves 4083
	// clusters, too few for it: an error (FreeBSD's makefs leaves an image
	// of zeros and exits 0).
	if _, err := computeGeometry(&Options{BytesPerSector: 512}, 16<<20); err == nil || !strings.Contains(err.Error(), "4083 clusters is too few for FAT16") {
		t.Errorf("16 MiB: error %v", err)
	}
}

func TestShortNames(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		gen   int
		short string
		conv  int
	}{
		{"README.TXT", 1, "README  TXT", convSame},
		{"readme.txt", 1, "README  TXT", convCase},
		{"Makefile", 1, "MAKEFILE   ", convCase},
		{"A Long File Name.text", 1, "ALONGF~1TEX", convLossy},
		{"longfilename.dat", 10, "LONGF~10DAT", convLossy},
		{"longfilename.dat", 123456, "L~123456DAT", convLossy},
		{".hidden", 1, "HIDDEN~1   ", convLossy},
		{"x.y.z", 1, "XY~1    Z  ", convLossy},
		{"a+b.c", 1, "AB~1    C  ", convLossy},
		{"sub dir", 1, "SUBDIR~1   ", convLossy},
		{"Ünï.txt", 1, "N~1     TXT", convLossy},
		{"☃", 1, "_~1        ", convLossy},
		{"file.jpeg", 1, "FILE~1  JPE", convLossy},
		{"FILE.TXT", 2, "FILE    TXT", convInvalid},
	} {
		dn, conv := shortName(c.name, c.gen)
		if string(dn[:]) != c.short || conv != c.conv {
			t.Errorf("shortName(%q, %d) = %q, %d; want %q, %d", c.name, c.gen, dn[:], conv, c.short, c.conv)
		}
	}
}

// TestOptionHelp checks OptionHelp against what ParseOption accepts: every
// name and letter it accepts appears exactly once, every letter it accepts
// (any single byte) is listed, and each entry names a field of Options and
// says its default and meaning, in makefs(8)'s order.
func TestOptionHelp(t *testing.T) {
	t.Parallel()
	help := OptionHelp()
	seen := map[string]int{}
	for _, o := range help {
		seen[o.Key]++
		seen[o.Letter]++
		f, ok := reflect.TypeFor[Options]().FieldByName(o.Field)
		if !ok || !f.IsExported() {
			t.Errorf("%s: Field %q is not a field of Options", o.Key, o.Field)
		}
		if o.Key == "" || len(o.Letter) != 1 || o.Default == "" || o.Usage == "" || strings.Contains(o.Usage, "\n") {
			t.Errorf("incomplete entry %+v", o)
		}
	}
	if !slices.IsSortedFunc(help, func(a, b fsopt.Option) int { return strings.Compare(a.Key, b.Key) }) {
		t.Errorf("OptionHelp is not sorted by key")
	}
	accepts := func(key string) bool {
		var o Options
		err := ParseOption(&o, key, "1")
		return err == nil || !strings.Contains(err.Error(), "unknown msdos option")
	}
	for key := range optionTable.Names() {
		if !accepts(key) {
			t.Errorf("ParseOption rejects %q", key)
		}
		if seen[key] != 1 {
			t.Errorf("%q is accepted by ParseOption and listed %d times by OptionHelp", key, seen[key])
		}
	}
	for c := 0; c < 256; c++ {
		if key := string(rune(c)); accepts(key) && seen[key] != 1 {
			t.Errorf("ParseOption accepts %q, which OptionHelp lists %d times", key, seen[key])
		}
	}
	for _, o := range help {
		if !accepts(o.Key) || !accepts(o.Letter) {
			t.Errorf("OptionHelp lists %s (%s), which ParseOption rejects", o.Key, o.Letter)
		}
	}
}
