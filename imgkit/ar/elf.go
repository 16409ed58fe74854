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
	f, ok := readELFHeader(r, size)
	if !ok {
		return nil, false
	}
	if f.shoff == 0 {
		return nil, true // an object without sections has no symbols
	}
	if !f.readSectionHeaders() {
		return nil, false
	}
	for i := uint64(0); i < f.shnum; i++ {
		if st := f.section(i); st.typ == shtSymtab {
			return f.symbols(st)
		}
	}
	return nil, true
}

// elfFile is what elfSymbols knows of an ELF file: where it is, its byte
// order and class, and where its section headers are.
type elfFile struct {
	r         io.ReaderAt
	size      int64
	bo        binary.ByteOrder
	is64      bool
	shoff     uint64 // e_shoff
	shentsize uint64 // e_shentsize
	shnum     uint64 // e_shnum, or section 0's sh_size when e_shnum is 0
	minEnt    uint64 // sizeof(Elf32_Shdr) or sizeof(Elf64_Shdr)
	sh        []byte // the section headers, shnum*shentsize bytes
}

// An elfSection holds the fields of a section header that elfSymbols uses.
type elfSection struct{ typ, link, off, size, entsize uint64 }

// readELFHeader reads the ELF header (e_ident and the e_shoff, e_shentsize
// and e_shnum fields) of the size bytes of r. It reports false when they
// are not an ELF file of a known class and byte order.
func readELFHeader(r io.ReaderAt, size int64) (*elfFile, bool) {
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
	f := &elfFile{r: r, size: size}
	switch ident[5] { // EI_DATA
	case elfData2LSB:
		f.bo = binary.LittleEndian
	case elfData2MSB:
		f.bo = binary.BigEndian
	default:
		return nil, false
	}
	switch ident[4] { // EI_CLASS
	case elfClass32:
		f.shoff = uint64(f.bo.Uint32(ident[32:]))     // e_shoff
		f.shentsize = uint64(f.bo.Uint16(ident[46:])) // e_shentsize
		f.shnum = uint64(f.bo.Uint16(ident[48:]))     // e_shnum
		f.minEnt = 40                                 // sizeof(Elf32_Shdr)
	case elfClass64:
		if size < 64 {
			return nil, false
		}
		f.is64 = true
		f.shoff = f.bo.Uint64(ident[40:])             // e_shoff
		f.shentsize = uint64(f.bo.Uint16(ident[58:])) // e_shentsize
		f.shnum = uint64(f.bo.Uint16(ident[60:]))     // e_shnum
		f.minEnt = 64                                 // sizeof(Elf64_Shdr)
	default:
		return nil, false
	}
	return f, true
}

// readSectionHeaders reads the section headers into f.sh. It reports false
// when they are smaller than the class's section header or do not fit in
// the file.
func (f *elfFile) readSectionHeaders() bool {
	// Every section header is read at its full size, whatever e_shnum
	// says, so a smaller e_shentsize makes the file malformed.
	if f.shentsize < f.minEnt {
		return false
	}
	if f.shnum == 0 && !f.readExtendedCount() {
		return false
	}
	size := uint64(f.size)
	if f.shnum == 0 || f.shentsize == 0 || f.shoff > size || f.shnum > (size-f.shoff)/f.shentsize {
		return false
	}
	f.sh = make([]byte, f.shnum*f.shentsize)
	if _, err := f.r.ReadAt(f.sh, int64(f.shoff)); err != nil {
		return false
	}
	return true
}

// readExtendedCount sets f.shnum from the sh_size of section 0, where a
// file with e_shnum 0 and sections keeps its section count (gABI,
// "Sections"). It reports false when section 0 is not in the file.
func (f *elfFile) readExtendedCount() bool {
	var s0 [64]byte
	if f.shoff > uint64(f.size) || uint64(f.size)-f.shoff < f.minEnt {
		return false
	}
	if _, err := f.r.ReadAt(s0[:f.minEnt], int64(f.shoff)); err != nil {
		return false
	}
	if f.is64 {
		f.shnum = f.bo.Uint64(s0[32:]) // sh_size
	} else {
		f.shnum = uint64(f.bo.Uint32(s0[20:])) // sh_size
	}
	return true
}

// section decodes section header i, which must be below f.shnum.
func (f *elfFile) section(i uint64) elfSection {
	b := f.sh[i*f.shentsize:]
	bo := f.bo
	if f.is64 {
		return elfSection{
			typ:     uint64(bo.Uint32(b[4:])),  // sh_type
			off:     bo.Uint64(b[24:]),         // sh_offset
			size:    bo.Uint64(b[32:]),         // sh_size
			link:    uint64(bo.Uint32(b[40:])), // sh_link
			entsize: bo.Uint64(b[56:]),         // sh_entsize
		}
	}
	return elfSection{
		typ:     uint64(bo.Uint32(b[4:])),  // sh_type
		off:     uint64(bo.Uint32(b[16:])), // sh_offset
		size:    uint64(bo.Uint32(b[20:])), // sh_size
		link:    uint64(bo.Uint32(b[24:])), // sh_link
		entsize: uint64(bo.Uint32(b[36:])), // sh_entsize
	}
}

// readSection returns the contents of section s, or nil when they do not
// fit in the file or are larger than maxSymtabRead.
func (f *elfFile) readSection(s elfSection) []byte {
	if s.off > uint64(f.size) || s.size > uint64(f.size)-s.off || s.size > maxSymtabRead {
		return nil
	}
	b := make([]byte, s.size)
	if _, err := f.r.ReadAt(b, int64(s.off)); err != nil {
		return nil
	}
	return b
}

// symbols returns the index names of the symbol table st (see elfSymbols),
// with isObject false when the table, its string table or a name in it is
// not in the file.
func (f *elfFile) symbols(st elfSection) (names []string, isObject bool) {
	if st.link >= f.shnum {
		return nil, false
	}
	symEnt := uint64(16) // sizeof(Elf32_Sym)
	if f.is64 {
		symEnt = 24 // sizeof(Elf64_Sym)
	}
	syms := f.readSection(st)
	strSec := f.section(st.link)
	strs := f.readSection(strSec)
	if syms == nil || strs == nil && strSec.size != 0 {
		return nil, false
	}
	// Entry 0 is the undefined symbol.
	for off := symEnt; off+symEnt <= uint64(len(syms)); off += symEnt {
		nameOff, info, shndx := f.symbol(syms[off:])
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
		names = append(names, cString(strs[nameOff:]))
	}
	return names, true
}

// symbol decodes the fields of the symbol table entry e that elfSymbols
// uses.
func (f *elfFile) symbol(e []byte) (nameOff uint64, info byte, shndx uint16) {
	if f.is64 {
		nameOff = uint64(f.bo.Uint32(e[0:])) // st_name
		info = e[4]                          // st_info
		shndx = f.bo.Uint16(e[6:])           // st_shndx
		return nameOff, info, shndx
	}
	nameOff = uint64(f.bo.Uint32(e[0:])) // st_name
	info = e[12]                         // st_info
	shndx = f.bo.Uint16(e[14:])          // st_shndx
	return nameOff, info, shndx
}

// cString returns the bytes of s before its first NUL, or all of s when it
// holds none.
func cString(s []byte) string {
	end := 0
	for end < len(s) && s[end] != 0 {
		end++
	}
	return string(s[:end])
}
