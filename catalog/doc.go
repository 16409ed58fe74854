// Package catalog builds and checks a fixture catalogue: a folder holding a
// manifest (one "NAME: COMMAND ARGS..." line per output), the inputs, and
// fixtures.sum (the size and SHA-256 of every output). It is the engine of
// "fixturegen build" and "fixturegen verify", of the magefixtures targets,
// and of users' own Go code.
//
// Load reads a catalogue; (*Catalog).Build brings its outputs up to date
// and checks or records their sums; (*Catalog).Verify rebuilds every
// output in a temporary copy of the folder and compares, and checks the
// outputs present in the folder against fixtures.sum too; (*Catalog).Clean
// removes outputs, the build state and the temporary files of killed runs.
// The commands of the manifest are run by a Runner, which also says which
// arguments of a command line name the files it reads (the fixturegen
// command supplies one that runs its makefs and ar in-process); progress
// and per-output results go to a Reporter as they happen, and a
// ProgressReporter also learns as each command starts, with the counter
// of the bytes it writes (Command.Progress).
//
// # What git keeps
//
// One fixtures.sum must hold in every clone of a repository, and a clone
// keeps only the inputs' contents, symbolic links and executable bits: its
// owner, umask, times and hard links are the cloner's. The fixturegen
// Runner (the one fixturegen build and verify, magefixtures and
// fixturetest.Runner use) therefore runs every makefs entry as if
// --metadata=git were its first option, so that each manifest line's bytes
// are those of "fixturegen makefs --metadata=git ARGS..." run by hand in
// the catalogue's folder: owners 0:0, files 0644 or 0755 by the execute
// bit, directories 0755, no hard links, with a -F spec's keywords still
// winning. An entry that writes --metadata=host keeps the host's owners,
// modes and hard links, and its sum then holds only on that host. The
// Runner refuses, naming the manifest line, a makefs entry without -T (or
// msdos's -o timestamp), whose -T names a file or whose options keep the
// files' own times (cd9660 -o compat=debian), unless it writes
// --metadata=host, since git sets every file's time at checkout; a makefs
// entry whose spec names an owner without its number and without -N
// (uname= without uid=), unless it writes --metadata=host, since the
// number would be the host's; and an ar entry with the U modifier, which
// stores the members' owners, modes and times. Under --metadata=host such an owner name makes the host's
// /etc/passwd and /etc/group inputs (Input.Host).
//
// # Up to date
//
// An output is up to date when its command line, the generator (the
// program's build identity, see Generator), every input the Runner names
// (type, mode, size, owner, hard links, symbolic link target, device and
// inode numbers, modification time and, on Linux, change time, or with
// Options.Hash contents; access times do not count; every file under an
// input directory; an input the command follows counts by its link's
// target and what it resolves to; an input that may be absent counts by
// its absence) and the output itself (its size, modification and change
// times, device and inode: the file the build wrote, not one edited or
// replaced since) are as they were when it was last built, and its sum is
// the recorded one. An input that is another entry's
// output makes the entry run after that entry and counts by that output's
// sum; an input folder that holds an output of the manifest, or the
// catalogue folder itself, fails the entry. What the last build saw is kept in
// .fixturegen-state beside the manifest; a build with or without
// Options.Hash reads what the other recorded (see Options.Hash).
//
// Three version strings guard what a build compares. The generator
// changes with fixturegen's module version or Go version, which rebuilds
// every output once. The state file's version (its first line, v5) is
// bumped whenever its lines' format or a field's meaning changes (what an
// input's fingerprint holds included); an older file is ignored, which
// rebuilds every output once and is never an error.
// The key version (keyVersion, v3) is bumped whenever what an entry's key
// hashes changes, so that no key of the old kind can match.
//
// # Files
//
// Outputs are written under temporary names beside them
// (.fixturegen-tmp-*, the pattern of every temporary file fixturegen
// makes) and renamed into place only when complete and, unless
// updating, only when their sum matches: a failed check keeps the old
// output. fixtures.sum and the state are replaced the same way. One Build
// or Clean at a time holds the catalogue's lock (.fixturegen-lock), so that
// concurrent builds and updates of one catalogue serialise instead of
// meeting; Verify writes nothing in the catalogue and takes no lock. When
// the context is cancelled, every temporary file of the run is removed
// before Build or Verify returns; Build removes, under the lock, those a
// killed run left in the catalogue folder and beside the outputs, and
// reports it with Reporter.Message.
//
// Nothing is written or removed through a symbolic link: an output whose
// folder is one fails (ErrOutputLink) and Clean refuses it; fixtures.sum
// and the state are replaced by rename, never written through a link; a
// lock file that is a link is an error. Output names are what CheckName
// accepts, so that every name written to fixtures.sum and the state reads
// back the same (WriteSums refuses any other).
package catalog
