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
// Measured on the 2-core Debian 12 development VM, shared with other jobs
// (load average about 7, so expect ±30%), with
//
//	go test ./imgkit/ar -run '^$' -bench . -benchtime 10x -count 2
//
// GNU ar, llvm-ar and the fixturegen binary all executed as processes:
//
//	rcsD, one 16 MiB object:   GNU ar 51-60 ms, llvm-ar 25-30 ms, fixturegen 11-17 ms
//	rcsD, 500 small objects:   GNU ar 89-149 ms, llvm-ar 19-32 ms, fixturegen 19-27 ms
//	r, one member of 200 MiB:  GNU ar 490-1010 ms, llvm-ar 380-640 ms, fixturegen 290-440 ms
//
// In-process (Plan.WriteAtTo into a bcache.Image, -count 2 -benchtime 20x),
// the 16 MiB archive takes 4.7-5.7 ms in copy mode with copy_file_range, 5.4-5.9
// ms in copy mode with read+pwrite, 6.7-7.1 ms mmap with copy_file_range and
// 10.3-11.0 ms mmap with read into the mapping, against 4.0 ms for copying
// the 16 MiB file with read and write (1.2-1.4x the floor). The 500-object
// archive takes 4.5-4.8 ms through the mapping and 7-10 ms in copy mode,
// which pays one pwrite per header. So fixturegen ar writes archives whose
// members average 256 KiB or more in copy mode with copy_file_range (member
// data never enters user space; prefaulting, the FreeBSD workaround, has no
// buffer to apply to), and other archives through the mapping. WriteAtTo
// copies members up to 64 KiB through one scratch buffer and WriteAt,
// because setting up the bulk path per small file (bcache maps each source)
// cost twice as much (500 objects in-process: 15.6 ms before, 7.9 ms after).
// Sections of an old archive are handed to CopyFrom as the archive's
// *os.File, so "r" on a large archive copies the kept members with
// copy_file_range too.
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
// Members gives archive order. Reading a member of a thin archive fails with
// ErrThin. The fs.FileInfo of a member returns its *Member from Sys.
package ar
