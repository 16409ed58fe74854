package bcache

import (
	"fmt"
	"os"
)

// EnvMode is the environment variable that chooses the cache mode when
// Options.Mode is ModeAuto: "mmap" or "copy" ("" and "auto" leave the choice
// to Create). Its value is a comma-separated list of words: besides one
// mode, "noclone" turns block cloning off (as Options.NoClone does) and
// "clone" leaves it on, as it is by default: "mmap,noclone".
const EnvMode = "FIXTUREGEN_CACHE"

// Mode selects how an Image hands out block buffers.
type Mode int

const (
	// ModeAuto uses the mode named by the FIXTUREGEN_CACHE environment
	// variable, else ModeMmap where a mapping can serve (a unix system and a
	// regular output file), else ModeCopy.
	ModeAuto Mode = iota
	// ModeMmap maps the image file MAP_SHARED and hands out the mapped bytes
	// themselves (zero-copy).
	ModeMmap
	// ModeCopy hands out owned buffers: Bread reads them with pread and
	// Bwrite writes them back with pwrite.
	ModeCopy
	// ModeMemory is the mode of the images CreateMemory and CreateWriterAt
	// make: the image is one owned byte slice and buffers are slices of it,
	// as the mapped bytes are in ModeMmap. It is what Image.Mode reports for
	// them, not a choice for Create, which refuses it with ErrMode.
	ModeMemory
)

// ParseMode parses a mode name as used in FIXTUREGEN_CACHE: "", "auto",
// "mmap" or "copy", possibly with the words clone and noclone beside it,
// separated by commas ("mmap,noclone"), which it checks and leaves to
// Create.
func ParseMode(s string) (Mode, error) {
	m, _, err := parseEnv(s)
	return m, err
}

// ParseOptions parses a FIXTUREGEN_CACHE value as ParseMode does into the
// Options it asks for: the mode, and NoClone for the word noclone. A
// program that takes the variable from an environment of its own (not the
// process's) passes the result to Create.
func ParseOptions(s string) (*Options, error) {
	m, noClone, err := parseEnv(s)
	if err != nil {
		return nil, err
	}
	return &Options{Mode: m, NoClone: noClone}, nil
}

// parseModeWord parses one mode word of FIXTUREGEN_CACHE.
func parseModeWord(s string) (Mode, error) {
	switch s {
	case "", "auto":
		return ModeAuto, nil
	case "mmap":
		return ModeMmap, nil
	case "copy":
		return ModeCopy, nil
	}
	return ModeAuto, errModeWord(s)
}

// errModeWord is the error of a FIXTUREGEN_CACHE value s that does not parse.
func errModeWord(s string) error {
	return fmt.Errorf("%w: %q (want auto, mmap or copy, and clone or noclone)", ErrMode, s)
}

// String returns the name ParseMode accepts for m, or "memory" for
// ModeMemory, which ParseMode does not accept.
func (m Mode) String() string {
	switch m {
	case ModeAuto:
		return "auto"
	case ModeMmap:
		return "mmap"
	case ModeCopy:
		return "copy"
	case ModeMemory:
		return "memory"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// resolveMode turns the requested mode into the effective one. An explicit
// ModeMmap where no mapping is possible is an error; a preference from the
// environment falls back to ModeCopy, so that one setting can serve a CI
// matrix spanning systems with and without mmap.
func resolveMode(m Mode, size int64, regular bool) (Mode, error) {
	fromEnv := false
	if m == ModeAuto {
		em, err := ParseMode(os.Getenv(EnvMode))
		if err != nil {
			return 0, fmt.Errorf("%s: %w", EnvMode, err)
		}
		m, fromEnv = em, true
	}
	switch m {
	case ModeCopy:
		return ModeCopy, nil
	case ModeAuto:
		if mmapSupported && regular && fitsInt(size) {
			return ModeMmap, nil
		}
		return ModeCopy, nil
	case ModeMmap:
		if mmapSupported && fitsInt(size) {
			return ModeMmap, nil
		}
		if fromEnv {
			return ModeCopy, nil
		}
		return 0, ErrNoMmap
	}
	return 0, fmt.Errorf("%w: %v", ErrMode, m)
}

// fitsInt reports whether size bytes can be addressed as one Go slice.
func fitsInt(size int64) bool {
	return int64(int(size)) == size
}
