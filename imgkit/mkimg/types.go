package mkimg

// gptTypes maps mkimg's scheme-neutral type aliases to GPT partition type
// GUIDs, as FreeBSD's mkimg accepts them for -s gpt.
var gptTypes = map[string]guid{
	"efi":            mustGUID("c12a7328-f81f-11d2-ba4b-00a0c93ec93b"),
	"freebsd":        mustGUID("516e7cb4-6ecf-11d6-8ff8-00022d09712b"),
	"freebsd-boot":   mustGUID("83bd6b9d-7f41-11dc-be0b-001560b84f0f"),
	"freebsd-nandfs": mustGUID("74ba7dd9-a689-11e1-bd04-00e081286acf"),
	"freebsd-swap":   mustGUID("516e7cb5-6ecf-11d6-8ff8-00022d09712b"),
	"freebsd-ufs":    mustGUID("516e7cb6-6ecf-11d6-8ff8-00022d09712b"),
	"freebsd-vinum":  mustGUID("516e7cb8-6ecf-11d6-8ff8-00022d09712b"),
	"freebsd-zfs":    mustGUID("516e7cba-6ecf-11d6-8ff8-00022d09712b"),
	"mbr":            mustGUID("024dee41-33e7-11d3-9d69-0008c781f39f"),
	"ms-basic-data":  mustGUID("ebd0a0a2-b9e5-4433-87c0-68b6b72699c7"),
	"ntfs":           mustGUID("ebd0a0a2-b9e5-4433-87c0-68b6b72699c7"),
	"prepboot":       mustGUID("9e1a2d38-c612-4316-aa26-8b49521e5a8b"),
}

// mbrTypes maps mkimg's type aliases to MBR OSType bytes, as the reference
// freebsd-mkimg accepts them for -s mbr.
var mbrTypes = map[string]byte{
	"ebr":      0x05,
	"efi":      0xef,
	"fat16b":   0x06,
	"fat32":    0x0b,
	"freebsd":  0xa5,
	"ntfs":     0x07,
	"prepboot": 0x41,
}

// schemeInfo is what a partitioning scheme allows.
type schemeInfo struct {
	maxParts int // partition slots, used or not
	labelMax int // label bytes; 0 means no labels
}

// schemes lists the schemes this package writes.
var schemes = map[string]schemeInfo{
	"gpt": {maxParts: gptMaxPartitions, labelMax: gptLabelMax},
	"mbr": {maxParts: mbrPartitions, labelMax: 0},
}

// lookupType reports whether the scheme knows the type alias, compared
// without regard to case as mkimg compares it.
func lookupType(scheme, alias string) bool {
	a := lower7(alias)
	switch scheme {
	case "gpt":
		_, ok := gptTypes[a]
		return ok
	case "mbr":
		_, ok := mbrTypes[a]
		return ok
	}
	return false
}
