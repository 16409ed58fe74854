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
	var bo binary.ByteOrder = binary.LittleEndian
	if o.BigEndian {
		bo = binary.BigEndian
	}
	ehsize, shentsize, symentsize := 52, 40, 16
	if o.Is64 {
		ehsize, shentsize, symentsize = 64, 64, 24
	}
	machine := o.Machine
	if machine == 0 {
		machine = 3
		if o.Is64 {
			machine = 62
		}
	}
	shstr := []byte("\x00.text\x00.symtab\x00.strtab\x00.shstrtab\x00")
	strtab := []byte{0}
	nameOff := make([]uint32, len(o.Syms))
	for i, s := range o.Syms {
		nameOff[i] = uint32(len(strtab))
		strtab = append(strtab, s.Name...)
		strtab = append(strtab, 0)
	}
	firstGlobal := 1
	for i, s := range o.Syms {
		if s.Bind == STB_LOCAL {
			firstGlobal = i + 2
		}
	}
	symtab := make([]byte, symentsize*(len(o.Syms)+1))
	for i, s := range o.Syms {
		e := symtab[symentsize*(i+1):]
		info := s.Bind<<4 | s.Type&0xf
		if o.Is64 {
			bo.PutUint32(e[0:], nameOff[i])
			e[4] = info
			bo.PutUint16(e[6:], s.Shndx)
			bo.PutUint64(e[8:], s.Value)
			bo.PutUint64(e[16:], s.Size)
		} else {
			bo.PutUint32(e[0:], nameOff[i])
			bo.PutUint32(e[4:], uint32(s.Value))
			bo.PutUint32(e[8:], uint32(s.Size))
			e[12] = info
			bo.PutUint16(e[14:], s.Shndx)
		}
	}
	align := func(b []byte, a int) []byte {
		for len(b)%a != 0 {
			b = append(b, 0)
		}
		return b
	}
	out := make([]byte, ehsize)
	textOff := len(out)
	out = append(out, o.Text...)
	out = align(out, 8)
	symOff := len(out)
	out = append(out, symtab...)
	strOff := len(out)
	out = append(out, strtab...)
	shstrOff := len(out)
	out = append(out, shstr...)
	out = align(out, 8)
	shoff := len(out)
	type sec struct {
		name, typ          uint32
		flags              uint64
		off, size          int
		link, info         uint32
		addralign, entsize uint64
	}
	secs := []sec{
		{},
		{name: 1, typ: 1, flags: 6, off: textOff, size: len(o.Text), addralign: 1},                                                       // .text
		{name: 7, typ: 2, off: symOff, size: len(symtab), link: 3, info: uint32(firstGlobal), addralign: 8, entsize: uint64(symentsize)}, // .symtab
		{name: 15, typ: 3, off: strOff, size: len(strtab), addralign: 1},                                                                 // .strtab
		{name: 23, typ: 3, off: shstrOff, size: len(shstr), addralign: 1},                                                                // .shstrtab
	}
	for _, s := range secs {
		h := make([]byte, shentsize)
		if o.Is64 {
			bo.PutUint32(h[0:], s.name)
			bo.PutUint32(h[4:], s.typ)
			bo.PutUint64(h[8:], s.flags)
			bo.PutUint64(h[24:], uint64(s.off))
			bo.PutUint64(h[32:], uint64(s.size))
			bo.PutUint32(h[40:], s.link)
			bo.PutUint32(h[44:], s.info)
			bo.PutUint64(h[48:], s.addralign)
			bo.PutUint64(h[56:], s.entsize)
		} else {
			bo.PutUint32(h[0:], s.name)
			bo.PutUint32(h[4:], s.typ)
			bo.PutUint32(h[8:], uint32(s.flags))
			bo.PutUint32(h[16:], uint32(s.off))
			bo.PutUint32(h[20:], uint32(s.size))
			bo.PutUint32(h[24:], s.link)
			bo.PutUint32(h[28:], s.info)
			bo.PutUint32(h[32:], uint32(s.addralign))
			bo.PutUint32(h[36:], uint32(s.entsize))
		}
		out = append(out, h...)
	}
	// ELF header.
	copy(out, "\x7fELF")
	out[4] = 1 // ELFCLASS32
	if o.Is64 {
		out[4] = 2
	}
	out[5] = 1 // ELFDATA2LSB
	if o.BigEndian {
		out[5] = 2
	}
	out[6] = 1                // EI_VERSION
	bo.PutUint16(out[16:], 1) // e_type ET_REL
	bo.PutUint16(out[18:], machine)
	bo.PutUint32(out[20:], 1) // e_version
	if o.Is64 {
		bo.PutUint64(out[40:], uint64(shoff))
		bo.PutUint16(out[52:], uint16(ehsize))
		bo.PutUint16(out[58:], uint16(shentsize))
		bo.PutUint16(out[60:], uint16(len(secs)))
		bo.PutUint16(out[62:], 4)
	} else {
		bo.PutUint32(out[32:], uint32(shoff))
		bo.PutUint16(out[40:], uint16(ehsize))
		bo.PutUint16(out[46:], uint16(shentsize))
		bo.PutUint16(out[48:], uint16(len(secs)))
		bo.PutUint16(out[50:], 4)
	}
	return out
}
