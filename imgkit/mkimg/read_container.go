package mkimg

import (
	"fmt"
	"io"

	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
	"github.com/fixturegen/fixturegen/imgkit/vdisk"
)

// containerOf returns the container format whose file head begins, or
// nil for a raw disk.
func containerOf(head []byte) vdisk.Opener {
	for _, f := range containers {
		if f.Match(head) {
			return f
		}
	}
	for _, f := range readOnlyContainers {
		if f.Match(head) {
			return f
		}
	}
	return nil
}

// openContainer returns the virtual disk of the container in r (size
// bytes) and the container format's name, or a nil Reader and "" when r
// is no container.
func openContainer(r io.ReaderAt, size int64) (vdisk.Reader, string, error) {
	head := make([]byte, min(size, describe.HeadSize))
	if _, err := r.ReadAt(head, 0); err != nil && err != io.EOF {
		return nil, "", fmt.Errorf("mkimg: reading the disk's first %d bytes: %w", len(head), err)
	}
	f := containerOf(head)
	if f == nil {
		// A format known by its file's end (a fixed VHD's footer).
		for _, t := range containers {
			if m, ok := t.(vdisk.TailMatcher); ok && m.MatchTail(r, size) {
				f = t
				break
			}
		}
	}
	if f == nil {
		return nil, "", nil
	}
	c, err := f.Open(r, size)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %s container: %w", ErrFormat, f.Name(), err)
	}
	return c, f.Name(), nil
}

// containerFields returns fields, the disk's fields at disk offsets,
// after the fields of c, the container r is the disk of, and placed at
// their bytes in c's file when c says where they are (vdisk.Spanner);
// for no container (nil c) it returns fields.
func containerFields(c vdisk.Reader, fields []describe.Field) []describe.Field {
	if c == nil {
		return fields
	}
	out := c.Fields()
	s, ok := c.(vdisk.Spanner)
	if !ok {
		return append(out, fields...)
	}
	for _, f := range fields {
		var spans [][2]int64
		if f.Offset >= 0 {
			spans = s.FileSpans(f.Offset, f.Size)
		} else {
			for _, sp := range f.Spans {
				spans = append(spans, s.FileSpans(sp[0], sp[1]-sp[0])...)
			}
		}
		f.Offset, f.Spans = -1, spans
		if len(spans) == 1 && spans[0][1]-spans[0][0] == f.Size {
			f.Offset, f.Spans = spans[0][0], nil
		}
		out = append(out, f)
	}
	return out
}
