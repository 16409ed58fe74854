package fstree

import (
	"fmt"
	"strings"
)

// File flags, with the values of FreeBSD's <sys/stat.h>, as Node.Flags holds
// them and chflags(1) and mtree(5) name them.
const (
	FlagNodump    = 0x00000001 // UF_NODUMP: "nodump"
	FlagUImmut    = 0x00000002 // UF_IMMUTABLE: "uchg", "uchange", "uimmutable"
	FlagUAppend   = 0x00000004 // UF_APPEND: "uappnd", "uappend"
	FlagOpaque    = 0x00000008 // UF_OPAQUE: "opaque"
	FlagUNounlink = 0x00000010 // UF_NOUNLINK: "uunlnk", "uunlink"
	FlagSystem    = 0x00000080 // UF_SYSTEM: "system", "usystem"
	FlagSparse    = 0x00000100 // UF_SPARSE: "sparse", "usparse"
	FlagOffline   = 0x00000200 // UF_OFFLINE: "offline", "uoffline"
	FlagReparse   = 0x00000400 // UF_REPARSE: "reparse", "ureparse"
	FlagUArchive  = 0x00000800 // UF_ARCHIVE: "uarch", "uarchive"
	FlagReadonly  = 0x00001000 // UF_READONLY: "rdonly", "readonly", "urdonly", "ureadonly"
	FlagHidden    = 0x00008000 // UF_HIDDEN: "hidden", "uhidden"
	FlagSArchived = 0x00010000 // SF_ARCHIVED: "arch", "archived"
	FlagSImmut    = 0x00020000 // SF_IMMUTABLE: "schg", "schange", "simmutable"
	FlagSAppend   = 0x00040000 // SF_APPEND: "sappnd", "sappend"
	FlagSNounlink = 0x00100000 // SF_NOUNLINK: "sunlnk", "sunlink"
	FlagSnapshot  = 0x00200000 // SF_SNAPSHOT: "snapshot"
)

// flagNames maps each name chflags(1) accepts for setting a flag to its
// value. A name with "no" in front clears the flag instead, except that
// "nodump" sets FlagNodump and "dump" clears it.
var flagNames = map[string]uint32{
	"arch": FlagSArchived, "archived": FlagSArchived,
	"opaque": FlagOpaque,
	"sappnd": FlagSAppend, "sappend": FlagSAppend,
	"schg": FlagSImmut, "schange": FlagSImmut, "simmutable": FlagSImmut,
	"snapshot": FlagSnapshot,
	"sunlnk":   FlagSNounlink, "sunlink": FlagSNounlink,
	"uappnd": FlagUAppend, "uappend": FlagUAppend,
	"uarch": FlagUArchive, "uarchive": FlagUArchive,
	"uchg": FlagUImmut, "uchange": FlagUImmut, "uimmutable": FlagUImmut,
	"hidden": FlagHidden, "uhidden": FlagHidden,
	"offline": FlagOffline, "uoffline": FlagOffline,
	"rdonly": FlagReadonly, "readonly": FlagReadonly, "urdonly": FlagReadonly, "ureadonly": FlagReadonly,
	"reparse": FlagReparse, "ureparse": FlagReparse,
	"sparse": FlagSparse, "usparse": FlagSparse,
	"system": FlagSystem, "usystem": FlagSystem,
	"uunlnk": FlagUNounlink, "uunlink": FlagUNounlink,
}

// ParseFlags parses a comma-separated list of file flag names as the mtree
// flags keyword and chflags(1) take them ("uchg,nodump"; "none" for no
// flags) into FreeBSD's UF_ and SF_ bits. An unknown name is an error
// wrapping ErrBadFlag.
func ParseFlags(s string) (uint32, error) {
	var set uint32
	for _, name := range strings.Split(s, ",") {
		switch {
		case name == "none":
			continue
		case name == "nodump":
			set |= FlagNodump
			continue
		case name == "dump":
			set &^= FlagNodump
			continue
		}
		if v, ok := flagNames[name]; ok {
			set |= v
		} else if v, ok := flagNames[strings.TrimPrefix(name, "no")]; ok && strings.HasPrefix(name, "no") {
			set &^= v
		} else {
			return 0, fmt.Errorf("%w %q", ErrBadFlag, name)
		}
	}
	return set, nil
}
