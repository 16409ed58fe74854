package mkimg

// Inputs returns the files that the disk o describes is made from, as o
// names them: each file partition's file (TYPE:=FILE) in slot order, then
// the boot code (-b), each once. A file partition's name is the one mkimg
// reads, after Partition.SplitFile, which looks for a file of the whole
// name FILE:OFFSET where the process runs: resolve relative names first
// (a build tool running the command elsewhere). The disk's bytes depend
// on these files' contents, on o, and on which of the names
// OptionalInputs gives exist, so that a build tool that records their
// state (the fixture catalogue does) knows when the disk is stale.
func (o *Options) Inputs() []string {
	var in []string
	for _, p := range o.Partitions {
		if p.File != "" {
			in = addOnce(in, p.SplitFile().File)
		}
	}
	if o.Bootcode != "" {
		in = addOnce(in, o.Bootcode)
	}
	return in
}

// OptionalInputs returns the names, in slot order and each once, that mkimg
// would read if they existed and reads none of now: the whole FILE:OFFSET
// of each file partition whose offset SplitFile split off because no file
// of that name exists. Creating one changes the disk (the file is read,
// and the offset is no offset), so a build tool records their absence.
func (o *Options) OptionalInputs() []string {
	var in []string
	for _, p := range o.Partitions {
		if p.File != "" && p.SplitFile().File != p.File {
			in = addOnce(in, p.File)
		}
	}
	return in
}

// addOnce appends f to list unless it holds it already.
func addOnce(list []string, f string) []string {
	for _, g := range list {
		if g == f {
			return list
		}
	}
	return append(list, f)
}
