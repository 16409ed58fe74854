// Package imgfmt holds what every image format of imgkit shares with the
// others and with the commands built on them, so that a new format copies
// none of it. Today that is the description of a file-system type's
// options, which "fixturegen help makefs" and "makefs -o help" print.
package imgfmt

// An Option describes one fs-option of a makefs(8) file-system type, the
// key=value items of -o.
type Option struct {
	// Key is the option's name as makefs(8) spells it: "sectors_per_cluster".
	Key string
	// Letter is its one-letter alias ("c"), or "" when it has none.
	Letter string
	// Field is the name of the field of the format's Options that the
	// option sets ("SectorsPerCluster"), so that a command can say an
	// error of the library, which names the field, in its own words.
	Field string
	// Default says what applies when the option is not given, as a value
	// ("2") or in words ("from the size").
	Default string
	// Usage is one line saying what the option sets.
	Usage string
}
