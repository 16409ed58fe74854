// Package mkimg writes partitioned disk images as FreeBSD's mkimg(1) makes
// them, byte for byte: every scheme of mkimg's (apm, bsd, ebr, gpt, mbr,
// vtoc8) in every output format (-f raw, qcow, qcow2, vhd, vhdf, vhdx,
// vmdk, vmdks), and mkimg's whole command line: partitions from files
// (TYPE[/LABEL]:=FILE[:[+]OFFSET]), from a command's output
// (TYPE[/LABEL]:-CMD), empty ones of a size (TYPE[/LABEL]::SIZE[:[+]OFFSET])
// and unused slots (-), and -s, -p, -o, -y, -v, -S, -P, -H, -T, -a, -b,
// -c, -C, --capacity, -t, -f, -h, --formats, --schemes and --version;
// Parse reads that command line. WriteFile, Write and Build write the
// disk; NewReader and OpenReader read one back, inside its container.
//
// Partitions are packed in slot order from the scheme's first usable
// block, aligned as the scheme aligns them (-P; -T for MBR). Without -y the disk and partition GUIDs are
// derived from the layout and the partitions' contents, so the same inputs
// give the same disk; with -y they are freebsd-mkimg -y's counters and the
// disk is its bytes. A file system can be written into a partition in
// place (MSDOSSource, FFSSource, ExtSource, BuilderSource), keeping its
// holes. Besides mkimg's type aliases the package takes Linux ones of
// its own (linux-data, linux-swap, linux-lvm, linux-raid, the
// Discoverable Partitions Specification's linux-root-x86-64,
// linux-root-arm64, linux-usr-x86-64, linux-usr-arm64 and xbootldr),
// which FreeBSD's mkimg lacks.
//
// DETAILS.md in this package's folder is the reference: the layout, the
// command line, the GUID rule, each scheme and each container field by
// field, the readers, the partition sources, the independent checks and
// where fixturegen differs from mkimg on purpose.
package mkimg
