package inspect

import (
	"encoding/binary"
	"io"
	"io/fs"
	"strconv"

	"github.com/fixturegen/fixturegen/imgkit/ar"
	"github.com/fixturegen/fixturegen/imgkit/ffs"
	"github.com/fixturegen/fixturegen/imgkit/msdos"
)

// The formats of this module.
func init() {
	Register(Format{
		Name:     "msdos",
		Match:    matchFAT,
		Open:     func(r io.ReaderAt, size int64) (fs.FS, error) { return msdos.Open(r, size) },
		Describe: describeFAT,
		Fields:   fieldsOf(msdos.Fields, func(f msdos.Field) Field { return Field(f) }),
		Summary: func(fsys fs.FS) string {
			v := fsys.(*msdos.FS)
			return "FAT" + strconv.Itoa(v.FATType()) + ", " + strconv.FormatInt(v.ClusterSize(), 10) + "-byte clusters"
		},
	})
	Register(Format{
		Name:     "ar",
		Match:    func(head []byte) bool { return hasPrefix(head, "!<arch>\n", "!<thin>\n") },
		Open:     func(r io.ReaderAt, size int64) (fs.FS, error) { return ar.NewReader(r, size) },
		Describe: describeAr,
		Fields: fieldsOf(ar.Fields, func(f ar.Field) Field {
			return Field{Path: f.Path, Name: f.Name, Offset: f.Offset, Size: f.Size, Value: f.Value}
		}),
		Summary: func(fsys fs.FS) string {
			v := fsys.(*ar.Reader)
			s := v.Format().String() + " layout"
			if v.Thin() {
				s = "thin, " + s
			}
			return s + ", index " + v.Index().String()
		},
	})
	Register(Format{
		Name:     "ffs",
		Match:    matchFFS,
		Open:     func(r io.ReaderAt, size int64) (fs.FS, error) { return ffs.Open(r, size) },
		Describe: describeFFS,
		Fields:   fieldsOf(ffs.Fields, func(f ffs.Field) Field { return Field(f) }),
		Summary: func(fsys fs.FS) string {
			v := fsys.(*ffs.FS)
			return "UFS" + strconv.Itoa(v.Version()) + ", " + strconv.Itoa(v.BlockSize()) + "/" + strconv.Itoa(v.FragSize()) + " block/fragment"
		},
	})
}

// matchFFS recognises a UFS1 or UFS2 superblock, in either byte order, at
// byte 8192 (UFS1, and UFS2 as NetBSD's makefs places it) or 65536 (UFS2):
// fs_magic is at byte 1372 of the superblock.
func matchFFS(head []byte) bool {
	const magicOff = 1372
	for _, sb := range []int{8192, 65536} {
		if len(head) < sb+magicOff+4 {
			continue
		}
		b := head[sb+magicOff:]
		for _, m := range []uint32{binary.LittleEndian.Uint32(b), binary.BigEndian.Uint32(b)} {
			if m == 0x011954 || m == 0x19540119 { // FS_UFS1_MAGIC, FS_UFS2_MAGIC
				return true
			}
		}
	}
	return false
}

func describeFFS(fi fs.FileInfo) string {
	if in, ok := fi.Sys().(*ffs.Inode); ok && in != nil {
		return "ino " + strconv.FormatUint(uint64(in.Ino), 10)
	}
	return ""
}

// fieldsOf adapts a format package's Fields function.
func fieldsOf[F any](fields func(io.ReaderAt, int64) ([]F, error), conv func(F) Field) func(io.ReaderAt, int64) ([]Field, error) {
	return func(r io.ReaderAt, size int64) ([]Field, error) {
		fs, err := fields(r, size)
		if err != nil {
			return nil, err
		}
		out := make([]Field, len(fs))
		for i, f := range fs {
			out[i] = conv(f)
		}
		return out, nil
	}
}

// matchFAT recognises a FAT boot sector: a jump instruction, a power-of-two
// BPB_BytsPerSec from 512 to 4096, a power-of-two BPB_SecPerClus and the
// 0x55 0xAA signature at byte 510.
func matchFAT(head []byte) bool {
	if len(head) < 512 || head[510] != 0x55 || head[511] != 0xaa {
		return false
	}
	if head[0] != 0xeb && head[0] != 0xe9 {
		return false
	}
	bps := binary.LittleEndian.Uint16(head[11:])
	spc := head[13]
	return bps >= 512 && bps <= 4096 && bps&(bps-1) == 0 && spc != 0 && spc&(spc-1) == 0
}

func describeFAT(fi fs.FileInfo) string {
	if e, ok := fi.Sys().(*msdos.Entry); ok && e != nil {
		return e.ShortName
	}
	return ""
}

func describeAr(fi fs.FileInfo) string {
	if m, ok := fi.Sys().(*ar.Member); ok && m != nil {
		return "@" + hexOff(m.HeaderOffset)
	}
	return ""
}
