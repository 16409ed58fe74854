package mkimg

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/vdisk"
	"github.com/fixturegen/fixturegen/imgkit/vdisk/qcow"
	"github.com/fixturegen/fixturegen/imgkit/vdisk/vhd"
	"github.com/fixturegen/fixturegen/imgkit/vdisk/vhdx"
	"github.com/fixturegen/fixturegen/imgkit/vdisk/vmdk"
)

// containers are the container formats mkimg writes (-f) and reads, one
// line each; a new one is a package of imgkit/vdisk and a line here.
var containers = []vdisk.Format{
	qcow.Format{Version: 1},
	qcow.Format{Version: 2},
	vhd.Format{},
	vhd.Format{Fixed: true},
	vhdx.Format{},
	vmdk.Format{},
	vmdk.StreamOptimized{},
}

// readOnlyContainers are the container formats mkimg reads but does not
// write, tried after the containers.
var readOnlyContainers = []vdisk.Opener{
	vmdk.Descriptor{},
}

// rawFormat and rawDescription are -f raw, the disk itself.
const rawFormat, rawDescription = "raw", "Raw Disk"

// ErrVHD and ErrVHDX report a VHD or VHDX the reader cannot open; they
// are vhd.ErrFormat and vhdx.ErrFormat.
var (
	ErrVHD  = vhd.ErrFormat
	ErrVHDX = vhdx.ErrFormat
)

// lookupFormat returns the container format name, which must be one
// checkFormat accepts; nil for raw ("" or "raw").
func lookupFormat(name string) vdisk.Format {
	if i := slices.IndexFunc(containers, func(f vdisk.Format) bool { return strings.EqualFold(f.Name(), name) }); i >= 0 {
		return containers[i]
	}
	return nil
}

// formatName returns f's -f name, raw for nil.
func formatName(f vdisk.Format) string {
	if f == nil {
		return rawFormat
	}
	return f.Name()
}

// Formats returns the names of the output formats, sorted, as mkimg
// --formats lists its own.
func Formats() []string {
	names := []string{rawFormat}
	for _, f := range containers {
		names = append(names, f.Name())
	}
	slices.Sort(names)
	return names
}

// FormatDescription returns the line mkimg's usage gives a format, such
// as "Raw Disk", or "" for a name it does not know.
func FormatDescription(name string) string {
	if strings.EqualFold(name, rawFormat) {
		return rawDescription
	}
	if f := lookupFormat(name); f != nil {
		return f.Description()
	}
	return ""
}

// SchemeDescription returns the line mkimg's usage gives a scheme, such
// as "GUID Partition Table", or "" for a scheme the package lacks.
func SchemeDescription(name string) string {
	if s, ok := schemes[strings.ToLower(name)]; ok {
		return s.description
	}
	return ""
}

// checkFormat refuses a -f name that is none of mkimg's formats, naming
// it and listing the formats. mkimg matches format names in any case; ""
// is raw.
func checkFormat(name string) error {
	if name != "" && !strings.EqualFold(name, rawFormat) && lookupFormat(name) == nil {
		return fmt.Errorf("%w: -f %q: unknown format; want %s", ErrOption, name, strings.Join(Formats(), ", "))
	}
	return nil
}

// params returns what l's container needs of the disk: the geometry,
// -y, -t, -v, and the ids the GUID rule gives it (containerID).
func (l *layout) params() *vdisk.Params {
	return &vdisk.Params{
		SectorSize: l.secsz, BlockSize: l.blksz, Heads: l.heads, SectorsPerTrack: l.track,
		Sectors: l.sectors, FreeBSDTestMode: l.testMode, Timestamp: l.timestamp,
		ID: l.containerID, Log: l.log,
	}
}

// containerID returns the id a container format draws for the disk
// (VHD's Unique Id, VHDX's Virtual Disk ID, VMDK's CID): in FreeBSD's
// test mode mkimg's next counter value, after the GPT's partitions' and
// disk's; otherwise derivedGUID(l.idSeed, role, 0).
func (l *layout) containerID(role string) [16]byte {
	if l.testMode {
		n := 1
		if l.scheme == "gpt" {
			n += len(l.parts) + 1
		}
		return counterGUID(byte(n))
	}
	return derivedGUID(l.idSeed, role, 0)
}
