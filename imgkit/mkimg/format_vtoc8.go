package mkimg

// The Sun disk label with an 8-partition VTOC (SMI VTOC8), the 512 bytes
// of sector 0 as Solaris's sys/dklabel.h (struct dk_label and struct
// dk_vtoc) lays them out; every number is big-endian. Field names below
// are Solaris's without their dkl_ and v_ prefixes, the VTOC's prefixed
// vtoc_ instead.
const (
	// vtocMagic is the label's magic, 0xDABE.
	vtocMagic = 0xdabe
	// vtocSanity is the VTOC's vtoc_sanity, 0x600DDEEE.
	vtocSanity = 0x600ddeee
	// vtocVersion is the VTOC's vtoc_version.
	vtocVersion = 1
	// vtocParts is how many partitions the label holds, vtoc_nparts.
	vtocParts = 8
	// vtocRawPart is the slot of the partition covering the whole disk
	// ("c"), which mkimg fills itself and skips when numbering -p slots.
	vtocRawPart = 2
	// vtocRPM is the rpm mkimg stores.
	vtocRPM = 3600
	// vtocSectorSize is the only sector size mkimg writes a VTOC8 for.
	vtocSectorSize = 512
)

// vtocLabel is the Sun disk label in sector 0. mkimg sets asciilabel,
// vtoc_version, vtoc_nparts, the tags, vtoc_sanity, rpm, pcyl, ncyl, acyl,
// nhead, nsect, the map, magic and cksum; the rest stays zero.
type vtocLabel [512]byte

func (v *vtocLabel) asciilabel() []byte      { return v[0:128] }
func (v *vtocLabel) vtocVersion() []byte     { return v[128:132] }
func (v *vtocLabel) vtocVolume() []byte      { return v[132:140] }
func (v *vtocLabel) vtocNparts() []byte      { return v[140:142] }
func (v *vtocLabel) vtocBootinfo() []byte    { return v[176:188] }
func (v *vtocLabel) vtocSanity() []byte      { return v[188:192] }
func (v *vtocLabel) vtocTimestamp() []byte   { return v[232:264] }
func (v *vtocLabel) writeReinstruct() []byte { return v[264:266] }
func (v *vtocLabel) readReinstruct() []byte  { return v[266:268] }
func (v *vtocLabel) rpm() []byte             { return v[420:422] }
func (v *vtocLabel) pcyl() []byte            { return v[422:424] }
func (v *vtocLabel) apc() []byte             { return v[424:426] }
func (v *vtocLabel) intrlv() []byte          { return v[430:432] }
func (v *vtocLabel) ncyl() []byte            { return v[432:434] }
func (v *vtocLabel) acyl() []byte            { return v[434:436] }
func (v *vtocLabel) nhead() []byte           { return v[436:438] }
func (v *vtocLabel) nsect() []byte           { return v[438:440] }
func (v *vtocLabel) magic() []byte           { return v[508:510] }
func (v *vtocLabel) cksum() []byte           { return v[510:512] }

// tag and flag are the VTOC's p_tag and p_flag of partition i.
func (v *vtocLabel) tag(i int) []byte  { return v[142+4*i:][:2] }
func (v *vtocLabel) flag(i int) []byte { return v[144+4*i:][:2] }

// cylno and nblk are the map's start cylinder and length in sectors of
// partition i.
func (v *vtocLabel) cylno(i int) []byte { return v[444+8*i:][:4] }
func (v *vtocLabel) nblk(i int) []byte  { return v[448+8*i:][:4] }
