// Package catalog builds and checks a fixture catalogue: a folder holding a
// manifest (one "NAME: COMMAND ARGS..." line per output), the inputs, and
// fixtures.sum (the size and SHA-256 of every output). It is the engine of
// "fixturegen build" and "fixturegen verify", of the magefixtures targets,
// and of users' own Go code.
//
// Load reads a catalogue; (*Catalog).Build brings its outputs up to date
// and checks or records their sums; (*Catalog).Verify rebuilds every
// output in a temporary copy of the folder and compares; (*Catalog).Clean
// removes outputs, the build state and the temporary files of killed runs.
// The commands of the manifest are run by a Runner, which also says which
// arguments of a command line name the files it reads (the fixturegen
// command supplies one that runs its makefs and ar in-process); progress
// and per-output results go to a Reporter as they happen, and a
// ProgressReporter also learns as each command starts, with the counter
// of the bytes it writes (Command.Progress).
//
// # Up to date
//
// An output is up to date when its command line, the generator (the
// program's build identity, see Generator), every input the Runner names
// (type, mode, size, owner, hard links, modification time and, on Linux,
// change time, or with Options.Hash contents; access times do not count; every file under an input directory; an input
// that may be absent counts by its absence) and the output itself are as
// they were when it was last built, and its sum is the recorded one. An
// input that is another entry's output, or a directory holding one, makes
// the entry run after that entry and counts by that output's sum. What the
// last build saw is kept in .fixturegen-state beside the manifest.
//
// # Files
//
// Outputs are written in a private temporary directory beside them
// (.fixturegen-tmp-*) and renamed into place only when complete and, unless
// updating, only when their sum matches: a failed check keeps the old
// output. fixtures.sum and the state are replaced the same way. One Build
// or Clean at a time holds the catalogue's lock (.fixturegen-lock), so that
// concurrent builds and updates of one catalogue serialise instead of
// meeting; Verify writes nothing in the catalogue and takes no lock. When
// the context is cancelled, every temporary file of the run is removed
// before Build or Verify returns.
package catalog
