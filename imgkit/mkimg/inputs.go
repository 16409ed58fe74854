package mkimg

// Inputs returns the files that the disk o describes is made from, as o
// names them: each file partition's File (TYPE:=FILE) in slot order, then
// the boot code (-b), each once. The disk's bytes depend on these files'
// contents and on o alone, so a build tool that records their state (the
// fixture catalogue does) knows when the disk is stale.
func (o *Options) Inputs() []string {
	var in []string
	add := func(f string) {
		for _, g := range in {
			if g == f {
				return
			}
		}
		in = append(in, f)
	}
	for _, p := range o.Partitions {
		if p.File != "" {
			add(p.File)
		}
	}
	if o.Bootcode != "" {
		add(o.Bootcode)
	}
	return in
}
