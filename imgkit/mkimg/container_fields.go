package mkimg

import (
	"encoding/binary"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/internal/fieldlist"
	"io"

	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// containerFields returns the header fields of the container r holds
// (size bytes), named as its specification names them and at their
// offsets in the container's file, for describe and diff; nil for a raw
// disk or a format without a fields hook. The partition table's fields
// that follow them are at offsets of the raw disk the container holds.
func containerFields(r io.ReaderAt, size int64) ([]describe.Field, error) {
	head := make([]byte, min(size, describe.HeadSize))
	if _, err := r.ReadAt(head, 0); err != nil && err != io.EOF {
		return nil, fmt.Errorf("mkimg: reading the disk's first %d bytes: %w", len(head), err)
	}
	f := containerOf(head)
	if f == nil || f.fields == nil {
		return nil, nil
	}
	return f.fields(head), nil
}

// qcowFields lists the header fields of a qcow or qcow2 file whose first
// bytes are head, as qcow2.txt names them.
func qcowFields(head []byte) []describe.Field {
	if len(head) < len(qcowHeaderV1{}) {
		return nil
	}
	switch binary.BigEndian.Uint32(head[4:8]) {
	case 1:
		h := (*qcowHeaderV1)(head[:48])
		return fieldlist.Of("qcow header", 0, h[:]).
			BE("magic", h.magic()).BE("version", h.version()).
			BE("backing_file_offset", h.backing_file_offset()).BE("backing_file_size", h.backing_file_size()).
			BE("mtime", h.mtime()).BE("size", h.size()).
			BE("cluster_bits", h.cluster_bits()).BE("l2_bits", h.l2_bits()).BE("padding", h.padding()).
			BE("crypt_method", h.crypt_method()).BE("l1_table_offset", h.l1_table_offset()).List()
	}
	if len(head) < len(qcowHeaderV2{}) {
		return nil
	}
	h := (*qcowHeaderV2)(head[:72])
	out := fieldlist.Of("qcow2 header", 0, h[:]).
		BE("magic", h.magic()).BE("version", h.version()).
		BE("backing_file_offset", h.backing_file_offset()).BE("backing_file_size", h.backing_file_size()).
		BE("cluster_bits", h.cluster_bits()).BE("size", h.size()).BE("crypt_method", h.crypt_method()).
		BE("l1_size", h.l1_size()).BE("l1_table_offset", h.l1_table_offset()).
		BE("refcount_table_offset", h.refcount_table_offset()).BE("refcount_table_clusters", h.refcount_table_clusters()).
		BE("nb_snapshots", h.nb_snapshots()).BE("snapshots_offset", h.snapshots_offset()).List()
	if binary.BigEndian.Uint32(head[4:8]) >= 3 && len(head) >= qcowV3HeaderLen {
		v3 := (*qcowHeaderV3)(head[:qcowV3HeaderLen])
		out = append(out, fieldlist.Of("qcow2 header", 0, v3[:]).
			BE("incompatible_features", v3.incompatible_features()).BE("compatible_features", v3.compatible_features()).
			BE("autoclear_features", v3.autoclear_features()).BE("refcount_order", v3.refcount_order()).
			BE("header_length", v3.header_length()).List()...)
	}
	return out
}

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
