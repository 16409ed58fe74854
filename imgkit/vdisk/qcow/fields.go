package qcow

import (
	"encoding/binary"

	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe/fieldlist"
)

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
