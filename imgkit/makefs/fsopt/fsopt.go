// Package fsopt describes and parses the fs-options of a makefs(8)
// file-system type, the key=value items of -o: the description of one
// option (Option), which "fixturegen help makefs" and "makefs -o help"
// print, the table a format keeps its options in (Table), which looks a
// key up, parses it and lists the help, and the number syntax every
// numeric option shares (ParseNumber, Number).
//
// It sits beside imgkit/makefs, which consumes the tables, as a package of
// its own because the format packages (imgkit/msdos, imgkit/ffs,
// imgkit/cd9660) build their tables on it and imgkit/makefs imports those
// packages to register them as types: a table type inside imgkit/makefs
// would make that an import cycle. fsopt imports nothing of this module.
package fsopt

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
