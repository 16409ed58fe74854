package vmdk

import (
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe/fieldlist"
)

// vmdkFields lists the SparseExtentHeader fields of a VMDK file whose
// first bytes are head, as Virtual Disk Format 1.1 names them.
func vmdkFields(head []byte) []describe.Field {
	if len(head) < vmdkSectorSize {
		return nil
	}
	h := (*vmdkHeader)(head[:vmdkSectorSize])
	return fieldlist.Of("VMDK SparseExtentHeader", 0, h[:]).
		LE("magicNumber", h.magicNumber()).LE("version", h.version()).LE("flags", h.flags()).
		LE("capacity", h.capacity()).LE("grainSize", h.grainSize()).
		LE("descriptorOffset", h.descriptorOffset()).LE("descriptorSize", h.descriptorSize()).
		LE("numGTEsPerGT", h.numGTEsPerGT()).LE("rgdOffset", h.rgdOffset()).LE("gdOffset", h.gdOffset()).
		LE("overHead", h.overHead()).LE("uncleanShutdown", h.uncleanShutdown()).
		LE("singleEndLineChar", h.singleEndLineChar()).LE("nonEndLineChar", h.nonEndLineChar()).
		LE("doubleEndLineChar1", h.doubleEndLineChar1()).LE("doubleEndLineChar2", h.doubleEndLineChar2()).
		LE("compressAlgorithm", h.compressAlgorithm()).List()
}
