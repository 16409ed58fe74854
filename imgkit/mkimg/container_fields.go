package mkimg

import (
	"encoding/binary"
	"fmt"
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
		return fieldsOf("qcow header", 0, h[:]).
			be("magic", h.magic()).be("version", h.version()).
			be("backing_file_offset", h.backing_file_offset()).be("backing_file_size", h.backing_file_size()).
			be("mtime", h.mtime()).be("size", h.size()).
			be("cluster_bits", h.cluster_bits()).be("l2_bits", h.l2_bits()).be("padding", h.padding()).
			be("crypt_method", h.crypt_method()).be("l1_table_offset", h.l1_table_offset()).list()
	}
	if len(head) < len(qcowHeaderV2{}) {
		return nil
	}
	h := (*qcowHeaderV2)(head[:72])
	out := fieldsOf("qcow2 header", 0, h[:]).
		be("magic", h.magic()).be("version", h.version()).
		be("backing_file_offset", h.backing_file_offset()).be("backing_file_size", h.backing_file_size()).
		be("cluster_bits", h.cluster_bits()).be("size", h.size()).be("crypt_method", h.crypt_method()).
		be("l1_size", h.l1_size()).be("l1_table_offset", h.l1_table_offset()).
		be("refcount_table_offset", h.refcount_table_offset()).be("refcount_table_clusters", h.refcount_table_clusters()).
		be("nb_snapshots", h.nb_snapshots()).be("snapshots_offset", h.snapshots_offset()).list()
	if binary.BigEndian.Uint32(head[4:8]) >= 3 && len(head) >= qcowV3HeaderLen {
		v3 := (*qcowHeaderV3)(head[:qcowV3HeaderLen])
		out = append(out, fieldsOf("qcow2 header", 0, v3[:]).
			be("incompatible_features", v3.incompatible_features()).be("compatible_features", v3.compatible_features()).
			be("autoclear_features", v3.autoclear_features()).be("refcount_order", v3.refcount_order()).
			be("header_length", v3.header_length()).list()...)
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
	return fieldsOf("VMDK SparseExtentHeader", 0, h[:]).
		le("magicNumber", h.magicNumber()).le("version", h.version()).le("flags", h.flags()).
		le("capacity", h.capacity()).le("grainSize", h.grainSize()).
		le("descriptorOffset", h.descriptorOffset()).le("descriptorSize", h.descriptorSize()).
		le("numGTEsPerGT", h.numGTEsPerGT()).le("rgdOffset", h.rgdOffset()).le("gdOffset", h.gdOffset()).
		le("overHead", h.overHead()).le("uncleanShutdown", h.uncleanShutdown()).
		le("singleEndLineChar", h.singleEndLineChar()).le("nonEndLineChar", h.nonEndLineChar()).
		le("doubleEndLineChar1", h.doubleEndLineChar1()).le("doubleEndLineChar2", h.doubleEndLineChar2()).
		le("compressAlgorithm", h.compressAlgorithm()).list()
}
