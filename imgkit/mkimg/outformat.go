package mkimg

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// outputFormat is one of mkimg's output formats (-f): the raw disk, or a
// container holding it, as mkimg's format.h describes one (a resize and a
// write hook). Each container format fills in its hooks from a file of
// its own (qcow.go, vhd.go, ...) with registerFormat.
type outputFormat struct {
	// name is the -f value; description the line mkimg's usage gives it.
	name, description string
	// resize returns the disk's size in sectors as the format needs it,
	// given the size the scheme and the capacities chose (mkimg's
	// format_resize, which may round it up, as VHD rounds to its CHS
	// geometry). It runs before the scheme writes its metadata, so that a
	// table at the disk's end (GPT's backup) sits at the grown end. nil
	// keeps the size.
	resize func(l *layout, sectors uint64) (uint64, error)
	// container lays out the container of disk, the finished raw disk,
	// and returns its size in bytes and the function that writes it into
	// an image of that size (through the block cache, as every image is
	// written). nil for raw, whose image is the disk itself.
	container func(l *layout, disk *rawDisk) (size int64, write func(im *bcache.Image) error, err error)
	// match reports whether head, the first describe.HeadSize bytes of a
	// file (or fewer), begins a container of the format; open returns the
	// raw disk it holds, as an io.ReaderAt of size bytes, for the readers
	// (bounded and fuzzed like every reader). nil for raw.
	match func(head []byte) bool
	open  func(r io.ReaderAt, size int64) (io.ReaderAt, int64, error)
	// fields lists the header fields of a container whose first bytes
	// are head (containerFields), for describe and diff; nil for none.
	fields func(head []byte) []describe.Field
}

// outputFormats are mkimg's formats, as its usage lists them.
var outputFormats = []*outputFormat{
	{name: "qcow", description: "QEMU Copy-On-Write, version 1"},
	{name: "qcow2", description: "QEMU Copy-On-Write, version 2"},
	{name: "raw", description: "Raw Disk"},
	{name: "vhd", description: "Virtual Hard Disk"},
	{name: "vhdf", description: "Fixed Virtual Hard Disk"},
	{name: "vhdx", description: "Virtual Hard Disk, version 2"},
	{name: "vmdk", description: "Virtual Machine Disk"},
	{name: "vmdks", description: "Virtual Machine Disk, stream-optimized (compressed)"},
}

// registerFormat gives the format name its hooks; each container
// format's file calls it from init.
func registerFormat(name string, resize func(*layout, uint64) (uint64, error),
	container func(*layout, *rawDisk) (int64, func(*bcache.Image) error, error),
	match func([]byte) bool, open func(io.ReaderAt, int64) (io.ReaderAt, int64, error)) {
	f := outputFormats[findFormat(name)]
	f.resize, f.container, f.match, f.open = resize, container, match, open
}

// setFormatFields gives the format name its fields hook.
func setFormatFields(name string, fields func(head []byte) []describe.Field) {
	outputFormats[findFormat(name)].fields = fields
}

// lookupFormat returns the format name ("" is raw), which must be one
// checkFormat accepts.
func lookupFormat(name string) *outputFormat {
	if name == "" {
		name = "raw"
	}
	return outputFormats[findFormat(name)]
}

// Formats returns the names of the output formats, sorted, as mkimg
// --formats lists its own.
func Formats() []string {
	names := make([]string, len(outputFormats))
	for i, f := range outputFormats {
		names[i] = f.name
	}
	return names
}

// FormatDescription returns the line mkimg's usage gives a format, such
// as "Raw Disk", or "" for a name it does not know.
func FormatDescription(name string) string {
	if i := findFormat(name); i >= 0 {
		return outputFormats[i].description
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

// findFormat returns the index in outputFormats of the format name, in
// any case as mkimg matches it, or -1.
func findFormat(name string) int {
	return slices.IndexFunc(outputFormats, func(f *outputFormat) bool { return strings.EqualFold(f.name, name) })
}

// checkFormat refuses a -f name that is none of mkimg's formats, naming
// it and listing the formats. mkimg matches format names in any case; ""
// is raw.
func checkFormat(name string) error {
	if name != "" && findFormat(name) < 0 {
		return fmt.Errorf("%w: -f %q: unknown format; want %s", ErrOption, name, strings.Join(Formats(), ", "))
	}
	return nil
}
