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
// unless -c grows it); else the first that reads, 512 bytes first, as
// every partitioning tool assumes; else read's error at 512 bytes.
func bySectorSize(size int64, read func(secsz int64) (*Table, int64, error)) (*Table, error) {
	var first *Table
	var firstErr error
	for _, secsz := range readSectorSizes {
		t, end, err := read(secsz)
		switch {
		case err == nil && end == size:
			return t, nil
		case err == nil && first == nil:
			first = t
		case err != nil && firstErr == nil:
			firstErr = err
		}
	}
	if first != nil {
		return first, nil
	}
	return nil, firstErr
}
