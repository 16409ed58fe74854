// Package ar reads and writes Unix ar archives (static libraries) byte for
// byte as GNU binutils ar 2.40 and llvm-ar 14 write them.
//
// # Layouts
//
// An archive is the magic "!<arch>\n" followed by members, each a 60-byte
// header of space-padded ASCII fields (name 16, date 12, uid 6, gid 6, mode
// 8 in octal, size 10, then "`\n") and the data, padded with "\n" to an even
// offset (ar(5)).
//
// FormatGNU (System V / GNU): names end in '/'; names longer than 15 bytes
// live in a "//" member, each ending "/\n", and the header says "/offset";
// the "//" member is padded to an even size with "\n" counted in its size.
// The symbol index "/" comes first: a big-endian 32-bit count, one 32-bit
// header offset per symbol, then the NUL-terminated names, padded with one
// NUL to an even size. "/SYM64/" has the same shape with 64-bit fields. Thin
// archives ("!<thin>\n") hold headers only; every name, the path of the
// member file relative to the archive's directory, is in "//".
//
// FormatBSD, as llvm-ar --format=bsd writes it: every name is "#1/len"
// with the name, NUL-padded so that the data starts 8-byte aligned, ahead of
// the data and counted in the size; the index "__.SYMDEF" holds a
// little-endian byte count of the ranlib array, (name offset, header offset)
// pairs, the byte count of the names, the names, padded with NULs to 8.
//
// # The symbol index
//
// For every ELF member (32- and 64-bit, either byte order, any machine)
// the index lists, in member order and symbol table order, the symbols of
// the first SHT_SYMTAB section whose binding is STB_GLOBAL, STB_WEAK or
// STB_GNU_UNIQUE and whose section is not SHN_UNDEF, and the SHN_COMMON
// symbols; hidden and protected visibility, STT_FUNC, STT_OBJECT, STT_TLS,
// STT_GNU_IFUNC and SHN_ABS symbols are included; locals, STT_FILE and
// section symbols, undefined and weak undefined symbols are not. This was
// checked against both tools with crafted objects (see TestELFClasses).
// Members that are not ELF are stored and get no entries. An archive with no
// ELF member gets no index; one with ELF members and no symbols gets an empty
// index. Not indexed, where GNU ar or llvm-ar would index them: COFF/PE,
// Mach-O, LLVM bitcode and GCC LTO (plugin) members.
//
// # Writing
//
// Both layouts put the index first and the index holds member offsets, so
// nothing can be written until every member's size and symbols are known.
// NewPlan takes members whose data is an io.ReaderAt (files, sections of
// an old archive), reads only their ELF section headers and symbol tables,
// and lays the whole archive out; Plan.WriteTo then streams it in one pass
// and Plan.WriteAtTo writes it at fixed offsets into an image such as a
// *bcache.Image, whose CopyFrom moves member data by its fastest path.
// Writer is the tar-like interface (WriteHeader, Write, Close): it spools
// member data (memory up to Options.SpoolMemory, 32 MiB by default, then an
// unlinked temporary file) and writes the archive in Close.
//
// The zero Options write what "ar rcsD" writes: member date 0, uid 0, gid 0,
// mode 644, and an index dated 0. Members read from an archive keep their
// date, uid, gid and mode fields byte for byte, as GNU ar keeps them, as
// long as their Header's ModTime, Uid, Gid and Mode are not changed.
//
// # Where GNU ar and llvm-ar differ
//
// CompatGNU (the default) matches GNU ar; CompatLLVM matches llvm-ar:
//
//   - /SYM64/: GNU ar switches when a member that has index entries starts
//     at or beyond 4 GiB, pads the table to 8 bytes and dates it with the
//     current time even with D (we write 0 with D); llvm-ar switches when
//     the last member starts at or beyond 4 GiB (SYM64_THRESHOLD lowers
//     it; Options.Sym64Threshold here) and pads to 2.
//   - Empty index: for an archive with objects but no symbols GNU ar writes
//     a 4-byte "/" (count 0); llvm-ar adds three NULs of names, padded to 8.
//   - Repeated long names: llvm-ar stores a name once in "//" and points
//     both members at it; GNU ar stores it again.
//   - Thin archives: when a member's base name is exactly 15 bytes GNU ar
//     leaves a '/' in byte 15 of the header's name field after the "/offset"
//     reference; llvm-ar does not. GNU ar writes an empty thin archive with
//     the regular magic. llvm-ar 14's d turns a thin archive into a regular
//     one (a bug; not reproduced).
//   - U (real metadata): GNU ar stores the whole st_mode (100644), llvm-ar
//     the permission bits (644).
//   - m with several members: GNU ar moves them one by one in command-line
//     order, each right after (or before) relpos; llvm-ar moves them as one
//     block in archive order.
//   - llvm-ar has no f (truncate names) modifier.
//   - BSD layout: GNU ar does not write it for ELF; FormatBSD follows
//     llvm-ar, and is always CompatLLVM.
//
// # Speed
//
// Writing into an image such as a *bcache.Image copies each member of up
// to 64 KiB through one scratch buffer with WriteAt, and hands larger ones
// to the image's CopyFrom, a member whose data is an *os.File (or a section
// of one, such as a member of an old archive) as that file, so that the
// image's file-to-file paths can apply. That split was chosen by
// measurement; the numbers, beside GNU ar's and llvm-ar's, are in
// BENCHMARKS.md at the repository root.
//
// # Reading
//
// NewReader reads an archive held in an io.ReaderAt, OpenReader one in a
// file, as archive/zip's functions of those names do. Both parse all
// headers up front; they read GNU, BSD (including "__.SYMDEF SORTED" and
// "__.SYMDEF_64") and thin archives. Every size read from the file is
// checked against the file's size before anything is allocated, the index
// and long-name table are capped at 1 GiB, and errors name the byte offset
// ("... at byte 0x44"). Short GNU names end at their first '/', as GNU ar
// reads them.
//
// The Reader is an io/fs.FS (with ReadDir and Stat) over the members. Each
// member is a regular file named by its member name. Member names that hold
// '/' (thin archives, the P modifier) are exposed as paths, with their
// directories synthesised. A name that appears more than once is exposed as
// given for its first occurrence and as "name;N" for the Nth (N >= 2), the
// count GNU ar's N modifier uses. Names that are not valid fs.FS paths
// (absolute, with ".." elements) are left out of the FS; Members lists them.
// Directories list their entries sorted by name, as fs.ReadDirFS requires;
// Members gives archive order. The fs.FileInfo of a member returns its
// *Member from Sys.
//
// # Thin archives
//
// A thin archive's members are the files its names point at, as GNU ar
// and llvm-ar read them: relative to the archive's directory, ".." allowed
// (GNU ar's T stores "../obj/x.o" for a member outside it), absolute names
// as they are. OpenReader and NewReaderDir read them so; NewReaderFS looks
// them up in an fs.FS, which cannot hold absolute or ".." names; NewReader
// has no directory and fails with ErrThin. A member file must be a regular
// file of exactly the header's size, else reading it fails with
// ErrThinMember: GNU ar 2.40 fails on a shorter file but reads the first
// Size bytes of a longer one, and llvm-ar 14 reads the whole file whatever
// the header says; a file of another size means the archive is stale, and
// the listing, the index and a linker all trust the header. Sizes are
// checked with stat before anything is read, so no header size is trusted
// beyond the file, and a file that shrinks while it is read gives an error,
// not a short member. A regular archive's member that GNU ar's T stores
// inside a thin archive ("/name:offset") is refused with ErrName, as
// llvm-ar refuses it; GNU ar flattens a thin archive added to a thin
// archive into its members, so thin-in-thin needs nothing more. Extract
// copies thin members out (GNU ar and llvm-ar refuse x on thin archives),
// refusing only a member whose file is the output file itself.
package ar
