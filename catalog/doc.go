// Package catalog builds and checks a fixture catalogue: a folder holding a
// manifest (one "NAME: COMMAND ARGS..." line per output), the inputs, and
// fixtures.sum (the size and SHA-256 of every output). It is the engine of
// "fixturegen build" and "fixturegen verify", of the magefixtures targets,
// and of users' own Go code.
//
// Load reads a catalogue; Catalog.Build brings its outputs up to date and
// checks or records their sums; Catalog.Verify rebuilds every output in a
// temporary copy of the folder and compares; Catalog.Clean removes
// outputs, the build state and the temporary files of killed runs. The
// manifest's commands are run by a Runner, which also names the files each
// command line reads (the fixturegen command supplies one that runs its
// makefs, ar and mkimg in-process); progress and per-output results go to a
// Reporter as they happen. ExampleCatalog_Build shows a whole build.
//
// # What to know
//
//   - An output is rebuilt when its command line, the generator, an input
//     it reads or the output file itself changed since its last build, or
//     its sum is not the recorded one; an input that is another entry's
//     output orders the two entries. What a build saw is kept in
//     .fixturegen-state beside the manifest.
//   - So that one fixtures.sum holds in every clone, the fixturegen Runner
//     runs makefs entries with --metadata=git and refuses, naming the
//     manifest line, entries whose bytes would depend on the checkout (no
//     -T, an owner given by name only, ar's U modifier) unless they write
//     --metadata=host. An mkimg entry's inputs are its partition files and
//     boot code, often other entries' outputs; a :-CMD partition, whose
//     bytes a command would make, is refused.
//   - Outputs, fixtures.sum and the state appear only when complete and,
//     unless updating, only when the sum matches; one Build or Clean at a
//     time holds the catalogue's lock; a cancelled context removes every
//     temporary file of the run. Nothing is written through a symbolic
//     link.
//
// # More
//
// DETAILS.md in this package's folder is the reference: what git keeps and
// what the Runner refuses, the up-to-date rule field by field and its
// three version strings, and how files are written, locked and removed.
package catalog
