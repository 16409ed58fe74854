// Package progress measures how far a long piece of work is, so that
// another goroutine can show it while it runs: a Meter holds the step the
// work is at ("copying part.img", "hashing disk.img"), how many bytes of
// that step are done and of how many (0 when not known), all in atomics,
// so that the work pays one atomic add per chunk it counts and the reader
// takes no lock.
//
// The libraries of this module take a *Meter in their options
// (bcache.Options.Progress, makefs.Command.Progress, mkimg.Options.Progress,
// ar.EditOptions.Progress, catalog.Command.Progress): they begin each long
// step with Meter.Step and count it as it goes. A nil *Meter measures
// nothing, so a library calls its methods without checking. The reader,
// typically a status line redrawn a few times a second, calls Load:
//
//	var m progress.Meter
//	o := &mkimg.Options{Scheme: "gpt", Partitions: parts, Progress: &m}
//	go func() { errc <- mkimg.WriteFile("disk.img", o) }()
//	// then, every 200 ms until errc has the result:
//	name, done, total := m.Load() // "copying part.img", 512 MiB, 1.5 GiB
//
// Meter.Add counts into the step shown and into the meter's Count, the
// sum of every Meter.Add: the libraries add with it the bytes they write
// into their outputs, so that Count ends at the bytes written. Work that
// writes nothing (hashing, scanning a disk for data) adds to its Step
// only, and work beside the step shown (a hash computed while a copy
// runs) counts in a Step of its own (NewStep) that the meter shows
// (Meter.Show) when the other is done.
package progress
