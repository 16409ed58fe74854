package mkimg

// readSectorSizes are the sector sizes tried for a table that does not
// record its own (an MBR, an EBR chain), in the order they are tried:
// mkimg's -S takes 512 to 4096.
var readSectorSizes = []int64{512, 1024, 2048, 4096}

// bySectorSize reads a table whose LBAs do not say their sector size, on
// a disk of size bytes: read reads it with sectors of secsz bytes and
// returns its table and the byte where its last partition ends. The
// table taken is the first, by readSectorSizes, under which the
// partitions end exactly at the disk's end (mkimg ends a disk there
// unless -c grows it); else the first under which they end within the
// disk, 512 bytes first, as every partitioning tool assumes; else the
// table read with 512-byte sectors that runs past the disk's end or
// reads with problems, as an image cut short does (ReadTable's
// Problems say what is missing); else read's error at the smallest size.
func bySectorSize(size int64, read func(secsz int64) (*Table, int64, error)) (*Table, error) {
	var fits, cut *Table
	var firstErr error
	for _, secsz := range readSectorSizes {
		t, end, err := read(secsz)
		ok := err == nil && end <= size && len(t.Problems) == 0
		switch {
		case ok && end == size:
			return t, nil
		case ok:
			if fits == nil {
				fits = t
			}
		case err == nil:
			if secsz == readSectorSizes[0] {
				cut = t
			}
		case firstErr == nil:
			firstErr = err
		}
	}
	switch {
	case fits != nil:
		return fits, nil
	case cut != nil:
		return cut, nil
	}
	return nil, firstErr
}
