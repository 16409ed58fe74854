// Package elfgen crafts small ELF relocatable objects for tests: a .text
// section, a symbol table and its string table, in either class and byte
// order. It exists so that tests can make hundreds of objects, or objects
// for machines no installed compiler targets, in microseconds.
package elfgen

import (
	"encoding/binary"
)

// Symbol bindings, types and special section indexes (System V gABI).
const (
	STB_LOCAL      = 0
	STB_GLOBAL     = 1
	STB_WEAK       = 2
	STB_GNU_UNIQUE = 10

	STT_NOTYPE  = 0
	STT_OBJECT  = 1
	STT_FUNC    = 2
	STT_SECTION = 3
	STT_FILE    = 4

	SHN_UNDEF  = 0
	SHN_ABS    = 0xfff1
	SHN_COMMON = 0xfff2

	// TextSection is the index of the .text section of a crafted object.
	TextSection = 1
)

// A Sym is one symbol table entry.
type Sym struct {
	Name  string
	Bind  byte
	Type  byte
	Shndx uint16
	Value uint64
	Size  uint64
}

// Object describes an object file to craft.
type Object struct {
	Is64      bool
	BigEndian bool
	Machine   uint16 // e_machine; 0 means EM_X86_64 (62) or EM_386 (3)
	Text      []byte
	Syms      []Sym // after the null symbol; locals must come first
}

// Bytes lays the object out: ELF header, .text, .symtab, .strtab,
// .shstrtab, section headers.
func (o *Object) Bytes() []byte {
	bo := o.byteOrder()
	ehsize := 52 // sizeof(Elf32_Ehdr)
	if o.Is64 {
		ehsize = 64 // sizeof(Elf64_Ehdr)
	}
	strtab, nameOff := o.stringTable()
	symtab := o.symbolTable(bo, nameOff)
	out := make([]byte, ehsize)
	textOff := len(out)
	out = append(out, o.Text...)
	out = align(out, 8)
	symOff := len(out)
	out = append(out, symtab...)
	strOff := len(out)
	out = append(out, strtab...)
	shstrOff := len(out)
	out = append(out, shstrtab...)
	out = align(out, 8)
	shoff := len(out)
	firstGlobal, symEnt := uint32(o.firstGlobal()), uint64(o.symEntSize())
	secs := []section{
		{},
		{name: 1, typ: 1, flags: 6, off: textOff, size: len(o.Text), addralign: 1},                                   // .text
		{name: 7, typ: 2, off: symOff, size: len(symtab), link: 3, info: firstGlobal, addralign: 8, entsize: symEnt}, // .symtab
		{name: 15, typ: 3, off: strOff, size: len(strtab), addralign: 1},                                             // .strtab
		{name: 23, typ: 3, off: shstrOff, size: len(shstrtab), addralign: 1},                                         // .shstrtab
	}
	for _, s := range secs {
		out = append(out, o.sectionHeader(bo, s)...)
	}
	o.putHeader(out, bo, shoff, len(secs))
	return out
}

// shstrtab is the section name table: the names of the sections, each
// NUL-terminated, after an empty name.
const shstrtab = "\x00.text\x00.symtab\x00.strtab\x00.shstrtab\x00"

// byteOrder returns the byte order of the object.
func (o *Object) byteOrder() binary.ByteOrder {
	if o.BigEndian {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// symEntSize returns the size of a symbol table entry of the object's
// class: sizeof(Elf32_Sym) or sizeof(Elf64_Sym).
func (o *Object) symEntSize() int {
	if o.Is64 {
		return 24
	}
	return 16
}

// stringTable returns the symbol string table, an empty name and then the
// NUL-terminated name of each symbol, and the offset of each name in it.
func (o *Object) stringTable() (strtab []byte, nameOff []uint32) {
	strtab = []byte{0}
	nameOff = make([]uint32, len(o.Syms))
	for i, s := range o.Syms {
		nameOff[i] = uint32(len(strtab))
		strtab = append(strtab, s.Name...)
		strtab = append(strtab, 0)
	}
	return strtab, nameOff
}

// firstGlobal returns the sh_info of the symbol table: one more than the
// index of the last local symbol (the null symbol is index 0).
func (o *Object) firstGlobal() int {
	firstGlobal := 1
	for i, s := range o.Syms {
		if s.Bind == STB_LOCAL {
			firstGlobal = i + 2
		}
	}
	return firstGlobal
}

// symbolTable returns the symbol table: the null symbol and then each
// symbol, whose name is at nameOff[i] in the string table.
func (o *Object) symbolTable(bo binary.ByteOrder, nameOff []uint32) []byte {
	symentsize := o.symEntSize()
	symtab := make([]byte, symentsize*(len(o.Syms)+1))
	for i, s := range o.Syms {
		e := symtab[symentsize*(i+1):]
		info := s.Bind<<4 | s.Type&0xf
		if o.Is64 {
			bo.PutUint32(e[0:], nameOff[i]) // st_name
			e[4] = info                     // st_info
			bo.PutUint16(e[6:], s.Shndx)    // st_shndx
			bo.PutUint64(e[8:], s.Value)    // st_value
			bo.PutUint64(e[16:], s.Size)    // st_size
		} else {
			bo.PutUint32(e[0:], nameOff[i])      // st_name
			bo.PutUint32(e[4:], uint32(s.Value)) // st_value
			bo.PutUint32(e[8:], uint32(s.Size))  // st_size
			e[12] = info                         // st_info
			bo.PutUint16(e[14:], s.Shndx)        // st_shndx
		}
	}
	return symtab
}

// align pads b with zeros to a multiple of a bytes.
func align(b []byte, a int) []byte {
	for len(b)%a != 0 {
		b = append(b, 0)
	}
	return b
}

// A section holds the fields of a section header.
type section struct {
	name, typ          uint32
	flags              uint64
	off, size          int
	link, info         uint32
	addralign, entsize uint64
}

// sectionHeader returns the section header of s in the object's class.
func (o *Object) sectionHeader(bo binary.ByteOrder, s section) []byte {
	if o.Is64 {
		h := make([]byte, 64)                // sizeof(Elf64_Shdr)
		bo.PutUint32(h[0:], s.name)          // sh_name
		bo.PutUint32(h[4:], s.typ)           // sh_type
		bo.PutUint64(h[8:], s.flags)         // sh_flags
		bo.PutUint64(h[24:], uint64(s.off))  // sh_offset
		bo.PutUint64(h[32:], uint64(s.size)) // sh_size
		bo.PutUint32(h[40:], s.link)         // sh_link
		bo.PutUint32(h[44:], s.info)         // sh_info
		bo.PutUint64(h[48:], s.addralign)    // sh_addralign
		bo.PutUint64(h[56:], s.entsize)      // sh_entsize
		return h
	}
	h := make([]byte, 40)                     // sizeof(Elf32_Shdr)
	bo.PutUint32(h[0:], s.name)               // sh_name
	bo.PutUint32(h[4:], s.typ)                // sh_type
	bo.PutUint32(h[8:], uint32(s.flags))      // sh_flags
	bo.PutUint32(h[16:], uint32(s.off))       // sh_offset
	bo.PutUint32(h[20:], uint32(s.size))      // sh_size
	bo.PutUint32(h[24:], s.link)              // sh_link
	bo.PutUint32(h[28:], s.info)              // sh_info
	bo.PutUint32(h[32:], uint32(s.addralign)) // sh_addralign
	bo.PutUint32(h[36:], uint32(s.entsize))   // sh_entsize
	return h
}

// putHeader writes the ELF header at the start of out: a relocatable
// object whose nsecs section headers are at shoff and whose section name
// table is section 4.
func (o *Object) putHeader(out []byte, bo binary.ByteOrder, shoff, nsecs int) {
	machine := o.Machine
	if machine == 0 {
		machine = 3 // EM_386
		if o.Is64 {
			machine = 62 // EM_X86_64
		}
	}
	copy(out, "\x7fELF")
	out[4] = 1 // ELFCLASS32
	if o.Is64 {
		out[4] = 2 // ELFCLASS64
	}
	out[5] = 1 // ELFDATA2LSB
	if o.BigEndian {
		out[5] = 2 // ELFDATA2MSB
	}
	out[6] = 1                // EI_VERSION
	bo.PutUint16(out[16:], 1) // e_type ET_REL
	bo.PutUint16(out[18:], machine)
	bo.PutUint32(out[20:], 1) // e_version
	if o.Is64 {
		bo.PutUint64(out[40:], uint64(shoff)) // e_shoff
		bo.PutUint16(out[52:], 64)            // e_ehsize
		bo.PutUint16(out[58:], 64)            // e_shentsize
		bo.PutUint16(out[60:], uint16(nsecs)) // e_shnum
		bo.PutUint16(out[62:], 4)             // e_shstrndx
	} else {
		bo.PutUint32(out[32:], uint32(shoff)) // e_shoff
		bo.PutUint16(out[40:], 52)            // e_ehsize
		bo.PutUint16(out[46:], 40)            // e_shentsize
		bo.PutUint16(out[48:], uint16(nsecs)) // e_shnum
		bo.PutUint16(out[50:], 4)             // e_shstrndx
	}
}
