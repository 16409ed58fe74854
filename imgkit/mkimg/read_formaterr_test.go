package mkimg

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
)

// TestFormatErrorPlace checks that a malformed table or container gives
// an *imgfmt.FormatError wrapping ErrFormat (and the container's own
// sentinel) that says the scheme or container, the byte and the field
// the reader refused.
func TestFormatErrorPlace(t *testing.T) {
	t.Parallel()
	build := func(scheme, format string, parts ...Partition) []byte {
		b, err := Build(&Options{Scheme: scheme, Format: format, FreeBSDTestMode: true, Partitions: parts})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	ufs, part := Partition{Type: "freebsd-ufs", Size: 4096}, Partition{Type: "freebsd", Size: 4096}
	gpt := build("gpt", "", ufs)
	ebr := build("ebr", "", part, part)
	second := int64(binary.LittleEndian.Uint32(ebr[mbrPartitionOffset+16+8:])) * 512
	for _, c := range []struct {
		name     string
		img      []byte
		mod      func(b []byte)
		format   string
		off      int64
		field    string
		in       string
		sentinel error
	}{
		{"gpt both headers", gpt, func(b []byte) { b[512+16] ^= 1; b[len(b)-512+16] ^= 1 }, "gpt", 512 + 16, "HeaderCRC32", "", ErrFormat},
		{"bsd d_checksum", build("bsd", "", ufs), func(b []byte) { b[512+bsdChecksumOffset] ^= 1 }, "bsd", 512 + bsdChecksumOffset, "d_checksum", "", ErrFormat},
		{"ebr second EBR", ebr, func(b []byte) { b[second+0x1fe] = 0 }, "ebr", second + 0x1fe, "Signature", "", ErrFormat},
		{"qcow2 cluster_bits", build("gpt", "qcow2", ufs), func(b []byte) { binary.BigEndian.PutUint32(b[20:], 3) }, "qcow2", 20, "cluster_bits", "", ErrFormat},
		{"vhd footer Checksum", build("gpt", "vhd", ufs), func(b []byte) { b[64] ^= 1 }, "vhd", 64, "Checksum", "", ErrVHD},
		{"vmdk version", build("gpt", "vmdk", ufs), func(b []byte) { b[4] = 9 }, "vmdk", 4, "version", "", ErrFormat},
		{"gpt in a qcow2", build("gpt", "qcow2", ufs), func(b []byte) {
			// The disk's clusters are stored as they are: break both GPT
			// headers where they lie in the file.
			for i := 0; ; i++ {
				k := bytes.Index(b[i:], []byte("EFI PART"))
				if k < 0 {
					break
				}
				b[i+k+16] ^= 1
				i += k
			}
		}, "gpt", 512 + 16, "HeaderCRC32", "the qcow2 container's disk", ErrFormat},
	} {
		b := bytes.Clone(c.img)
		c.mod(b)
		var err error
		if c.format == "ebr" {
			// ReadTable takes the first EBR for an MBR of one partition.
			_, err = readEBR(bytes.NewReader(b), int64(len(b)))
		} else {
			_, err = NewReader(bytes.NewReader(b), int64(len(b)))
		}
		if !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v, want ErrFormat", c.name, err)
		}
		checkPlace(t, c.name, err, c.sentinel, c.format, c.off, c.field, c.in)
	}
}

// checkPlace fails t unless err wraps sentinel and is an
// *imgfmt.FormatError of format at byte off, field field, in in.
func checkPlace(t *testing.T, name string, err, sentinel error, format string, off int64, field, in string) {
	t.Helper()
	var fe *imgfmt.FormatError
	if !errors.Is(err, sentinel) || !errors.As(err, &fe) {
		t.Errorf("%s: %v, want an *imgfmt.FormatError wrapping %v", name, err, sentinel)
		return
	}
	if fe.Format != format || fe.Off != off || fe.Field != field || fe.In != in {
		t.Errorf("%s: Format %q Off %#x Field %q In %q, want %q %#x %q %q (%v)", name, fe.Format, fe.Off, fe.Field, fe.In, format, off, field, in, err)
	}
}
