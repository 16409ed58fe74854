package ar

import (
	"encoding/binary"
	"io"
)

// This file reads just enough of an ELF file (System V gABI, "Object Files")
// to list the symbols an archive index names: the first SHT_SYMTAB section
// and the string table its sh_link names. It reads through an io.ReaderAt
// and bounds every size by the member size before allocating.

// ELF constants (gABI).
const (
	elfClass32    = 1      // ELFCLASS32
	elfClass64    = 2      // ELFCLASS64
	elfData2LSB   = 1      // ELFDATA2LSB
	elfData2MSB   = 2      // ELFDATA2MSB
	shtSymtab     = 2      // SHT_SYMTAB
	shnUndef      = 0      // SHN_UNDEF
	shnCommon     = 0xfff2 // SHN_COMMON
	stbGlobal     = 1      // STB_GLOBAL
	stbWeak       = 2      // STB_WEAK
	stbGNUUnique  = 10     // STB_GNU_UNIQUE
	elfIdentLen   = 16     // EI_NIDENT
	maxSymtabRead = 1 << 30
)

// isELF reports whether p starts with the ELF magic \x7fELF.
func isELF(p []byte) bool {
	return len(p) >= 4 && p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F'
}

// elfSymbols returns the names GNU ar puts in an archive index for an ELF
// object of size bytes read through r: the symbols, in symbol table order,
// whose binding is STB_GLOBAL, STB_WEAK or STB_GNU_UNIQUE and whose section
// is not SHN_UNDEF, and the common (SHN_COMMON) symbols. It reports
// isObject false for data that is not a well-formed ELF file; such members
// are stored without index entries, as GNU ar stores them.
func elfSymbols(r io.ReaderAt, size int64) (names []string, isObject bool) {
	var ident [64]byte
	if size < 52 {
		return nil, false
	}
	n := int64(len(ident))
	if size < n {
		n = size
	}
	if _, err := r.ReadAt(ident[:n], 0); err != nil && err != io.EOF {
		return nil, false
	}
	if !isELF(ident[:]) {
		return nil, false
	}
	var bo binary.ByteOrder
	switch ident[5] { // EI_DATA
	case elfData2LSB:
		bo = binary.LittleEndian
	case elfData2MSB:
		bo = binary.BigEndian
	default:
		return nil, false
	}
	var shoff, shentsize, shnum, minEnt uint64
	is64 := false
	switch ident[4] { // EI_CLASS
	case elfClass32:
		shoff = uint64(bo.Uint32(ident[32:]))     // e_shoff
		shentsize = uint64(bo.Uint16(ident[46:])) // e_shentsize
		shnum = uint64(bo.Uint16(ident[48:]))     // e_shnum
		minEnt = 40                               // sizeof(Elf32_Shdr)
	case elfClass64:
		if size < 64 {
			return nil, false
		}
		is64 = true
		shoff = bo.Uint64(ident[40:])             // e_shoff
		shentsize = uint64(bo.Uint16(ident[58:])) // e_shentsize
		shnum = uint64(bo.Uint16(ident[60:]))     // e_shnum
		minEnt = 64                               // sizeof(Elf64_Shdr)
	default:
		return nil, false
	}
	if shoff == 0 {
		return nil, true // an object without sections has no symbols
	}
	// Every section header is read at its full size, whatever e_shnum
	// says, so a smaller e_shentsize makes the file malformed.
	if shentsize < minEnt {
		return nil, false
	}
	if shnum == 0 {
		// e_shnum 0 with sections: the count lives in sh_size of section 0.
		var s0 [64]byte
		if shoff > uint64(size) || uint64(size)-shoff < minEnt {
			return nil, false
		}
		if _, err := r.ReadAt(s0[:minEnt], int64(shoff)); err != nil {
			return nil, false
		}
		if is64 {
			shnum = bo.Uint64(s0[32:])
		} else {
			shnum = uint64(bo.Uint32(s0[20:]))
		}
	}
	if shnum == 0 || shentsize == 0 || shoff > uint64(size) || shnum > (uint64(size)-shoff)/shentsize {
		return nil, false
	}
	sh := make([]byte, shnum*shentsize)
	if _, err := r.ReadAt(sh, int64(shoff)); err != nil {
		return nil, false
	}
	type section struct{ typ, link, off, size, entsize uint64 }
	sec := func(i uint64) section {
		b := sh[i*shentsize:]
		if is64 {
			return section{
				typ:     uint64(bo.Uint32(b[4:])),  // sh_type
				off:     bo.Uint64(b[24:]),         // sh_offset
				size:    bo.Uint64(b[32:]),         // sh_size
				link:    uint64(bo.Uint32(b[40:])), // sh_link
				entsize: bo.Uint64(b[56:]),         // sh_entsize
			}
		}
		return section{
			typ:     uint64(bo.Uint32(b[4:])),  // sh_type
			off:     uint64(bo.Uint32(b[16:])), // sh_offset
			size:    uint64(bo.Uint32(b[20:])), // sh_size
			link:    uint64(bo.Uint32(b[24:])), // sh_link
			entsize: uint64(bo.Uint32(b[36:])), // sh_entsize
		}
	}
	readSec := func(s section) []byte {
		if s.off > uint64(size) || s.size > uint64(size)-s.off || s.size > maxSymtabRead {
			return nil
		}
		b := make([]byte, s.size)
		if _, err := r.ReadAt(b, int64(s.off)); err != nil {
			return nil
		}
		return b
	}
	for i := uint64(0); i < shnum; i++ {
		st := sec(i)
		if st.typ != shtSymtab {
			continue
		}
		if st.link >= shnum {
			return nil, false
		}
		symEnt := uint64(16)
		if is64 {
			symEnt = 24
		}
		syms := readSec(st)
		strs := readSec(sec(st.link))
		if syms == nil || strs == nil && sec(st.link).size != 0 {
			return nil, false
		}
		for off := symEnt; off+symEnt <= uint64(len(syms)); off += symEnt {
			e := syms[off:]
			var nameOff uint64
			var info byte
			var shndx uint16
			if is64 {
				nameOff = uint64(bo.Uint32(e[0:])) // st_name
				info = e[4]                        // st_info
				shndx = bo.Uint16(e[6:])           // st_shndx
			} else {
				nameOff = uint64(bo.Uint32(e[0:])) // st_name
				info = e[12]                       // st_info
				shndx = bo.Uint16(e[14:])          // st_shndx
			}
			bind := info >> 4
			if shndx == shnUndef {
				continue
			}
			if bind != stbGlobal && bind != stbWeak && bind != stbGNUUnique && shndx != shnCommon {
				continue
			}
			if nameOff >= uint64(len(strs)) {
				return nil, false
			}
			s := strs[nameOff:]
			end := 0
			for end < len(s) && s[end] != 0 {
				end++
			}
			names = append(names, string(s[:end]))
		}
		return names, true
	}
	return nil, true
}
