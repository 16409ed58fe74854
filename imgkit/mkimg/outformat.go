package mkimg

import (
	"fmt"
	"slices"
	"strings"
)

// outputFormat is one of mkimg's output formats (-f) and whether this
// package writes it yet.
type outputFormat struct {
	name, description string
	written           bool
}

// outputFormats are mkimg's formats, as its usage lists them.
var outputFormats = []outputFormat{
	{"qcow", "QEMU Copy-On-Write, version 1", false},
	{"qcow2", "QEMU Copy-On-Write, version 2", false},
	{"raw", "Raw Disk", true},
	{"vhd", "Virtual Hard Disk", false},
	{"vhdf", "Fixed Virtual Hard Disk", false},
	{"vhdx", "Virtual Hard Disk, version 2", false},
	{"vmdk", "Virtual Machine Disk", false},
	{"vmdks", "Virtual Machine Disk, stream-optimized (compressed)", false},
}

// Formats returns the names of the output formats the package writes,
// sorted, as mkimg --formats lists its own: only raw yet.
func Formats() []string {
	var names []string
	for _, f := range outputFormats {
		if f.written {
			names = append(names, f.name)
		}
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
	return slices.IndexFunc(outputFormats, func(f outputFormat) bool { return strings.EqualFold(f.name, name) })
}

// checkFormat refuses a -f format the package does not write, naming it:
// one of mkimg's other formats is "not supported yet", any other word is
// unknown. mkimg matches format names in any case; "" is raw.
func checkFormat(name string) error {
	if name == "" {
		return nil
	}
	i := findFormat(name)
	switch {
	case i < 0:
		return fmt.Errorf("%w: -f %q: unknown format; want %s", ErrOption, name, strings.Join(Formats(), ", "))
	case !outputFormats[i].written:
		return fmt.Errorf("%w: -f %s: the %s format is not supported yet; only %s is written", ErrOption, name, name, strings.Join(Formats(), ", "))
	}
	return nil
}
