// Package ar reads, writes and edits Unix ar archives (static libraries)
// byte for byte as GNU binutils ar 2.40 and llvm-ar 14 write them: GNU
// (System V) and BSD layouts, thin archives, and the symbol index of ELF
// members.
//
// There are three ways in, each with an Example:
//
//   - NewPlan lays out a whole archive from members whose data is an
//     io.ReaderAt, reading only their ELF symbol tables, and Plan.WriteTo
//     or Plan.WriteAtTo writes it; Writer is the tar-like streaming form
//     (WriteHeader, Write, Close) over the same layout.
//   - OpenReader reads an archive file and NewReader one in an
//     io.ReaderAt, as archive/zip's functions of those names do; the Reader
//     is an io/fs.FS over the members, and Reader.Symbols gives the index.
//   - OpenArchive opens an archive file for editing (Replace, Append,
//     Delete, Move) and Commit writes the result; fixturegen ar is built
//     on it.
//
// A whole archive is two calls:
//
//	p, err := ar.NewPlan(entries, &ar.Options{}) // what "ar rcsD" writes
//	_, err = p.WriteTo(w)
//
// # What to know
//
//   - The zero Options write what "ar rcsD" writes: dates, uids and gids
//     0, mode 644. Options.Compat chooses GNU ar's bytes (the default) or
//     llvm-ar's where the two differ; FormatBSD is always llvm-ar's.
//   - Only ELF members are indexed; COFF, Mach-O, bitcode and LTO members
//     are stored without index entries.
//   - Every size read from an archive is checked before it is trusted, and
//     errors name the byte offset. A thin archive's members are read from
//     the files its names point at, which must have exactly the header's
//     size (ErrThinMember); NewReader has no directory and fails on a thin
//     archive with ErrThin.
//   - Commit writes a new file beside the archive and renames it into
//     place only when complete.
//
// # More
//
// DETAILS.md in this package's folder is the reference: the layouts byte by
// byte, the symbol index, every difference between GNU ar and llvm-ar and
// which one each Compat follows, and the reading rules for names and thin
// archives.
package ar
