package inspect

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// MaxChanges bounds the changes a Report holds; the rest are counted in
// Report.Omitted.
const MaxChanges = 200

// maxRanges bounds the differing byte ranges Diff collects.
const maxRanges = 10000

// Kinds of Change.
const (
	KindField = "field"  // a field's value differs
	KindOnlyA = "only-a" // a structure or file is only in the first file
	KindOnlyB = "only-b" // ... only in the second
	KindMoved = "moved"  // same content, another offset
	KindBytes = "bytes"  // a byte range that differs outside every reported field
	KindSize  = "size"   // the files' sizes differ
)

// A Change is one difference between two files.
type Change struct {
	Kind  string
	Path  string // the structure or file; "" for KindBytes and KindSize
	Field string // the field's name, for KindField
	OffA  int64  // offset in the first file, -1 when there is none
	OffB  int64  // offset in the second file, -1 when there is none
	Len   int64  // for KindBytes: the range's length (OffA -1: the total of Old more ranges)
	// SpansA and SpansB say where a field spread over the file (OffA or
	// OffB -1: a file's data, its cluster chain) lies in each file, for
	// KindMoved.
	SpansA, SpansB [][2]int64
	Old            string // value in the first file
	New            string // value in the second file
	Comment        string // more about it ("first difference at byte 5 of the file")
}

// A Report is the result of Diff.
type Report struct {
	Same             bool
	SizeA, SizeB     int64
	FormatA, FormatB string // format names, "" when not recognised
	SummaryA         string // the format's one-line summary, when it parsed
	SummaryB         string
	ParseErrA        error // why the first file could not be described, if it was recognised
	ParseErrB        error
	Changes          []Change
	Omitted          int // changes left out beyond MaxChanges

	parsed bool // the fields of both files were compared
}

// Diff compares the file a (sizeA bytes) with the file b (sizeB bytes). It
// returns an error only when a file cannot be read.
func Diff(a io.ReaderAt, sizeA int64, b io.ReaderAt, sizeB int64) (*Report, error) {
	ranges, err := byteRanges(a, sizeA, b, sizeB)
	if err != nil {
		return nil, err
	}
	rep := &Report{SizeA: sizeA, SizeB: sizeB, Same: sizeA == sizeB && len(ranges) == 0}
	if rep.Same {
		return rep, nil
	}
	if sizeA != sizeB {
		rep.add(Change{Kind: KindSize, OffA: -1, OffB: -1, Old: strconv.FormatInt(sizeA, 10) + " bytes", New: strconv.FormatInt(sizeB, 10) + " bytes"})
	}
	fa, fb := Detect(a, sizeA), Detect(b, sizeB)
	if fa != nil {
		rep.FormatA = fa.Name
	}
	if fb != nil {
		rep.FormatB = fb.Name
	}
	var covered [][2]int64
	if fa != nil && fa == fb {
		fsA, errA := fa.Open(a, sizeA)
		fsB, errB := fb.Open(b, sizeB)
		if errA != nil || errB != nil {
			fsA, fsB = nil, nil // not a typed nil inside the interface
		} else if fa.Summary != nil {
			rep.SummaryA, rep.SummaryB = fa.Summary(fsA), fa.Summary(fsB)
		}
		if fa.Fields != nil {
			fieldsA, errA := fa.Fields(a, sizeA)
			fieldsB, errB := fb.Fields(b, sizeB)
			rep.ParseErrA, rep.ParseErrB = errA, errB
			if errA == nil && errB == nil {
				covered = rep.compareFields(fieldsA, fieldsB, fsA, fsB)
			}
		}
	}
	rep.addRanges(ranges, covered, sizeA, sizeB, covered != nil)
	return rep, nil
}

func (r *Report) add(c Change) {
	if len(r.Changes) >= MaxChanges {
		r.Omitted++
		return
	}
	r.Changes = append(r.Changes, c)
}

type fieldKey struct{ path, name string }

// compareFields matches the fields of both descriptions and records the
// changes. It returns the byte spans, in either file, that the reported
// changes and moves explain.
func (r *Report) compareFields(fa, fb []describe.Field, fsA, fsB fs.FS) [][2]int64 {
	d := &fieldDiff{r: r, fsA: fsA, fsB: fsB}
	d.fromA(fa, fb)
	d.fromB(fa, fb)
	return mergeSpans(d.spans)
}

// fieldDiff collects what compareFields finds: the changes, in r, and the
// byte spans of the fields they concern.
type fieldDiff struct {
	r        *Report
	fsA, fsB fs.FS
	spans    [][2]int64
}

// indexFields returns where each (path, name) of fields is (the last one,
// when it repeats), and the paths they have.
func indexFields(fields []describe.Field) (map[fieldKey]int, map[string]bool) {
	at := make(map[fieldKey]int, len(fields))
	paths := map[string]bool{}
	for i, f := range fields {
		at[fieldKey{f.Path, f.Name}] = i
		paths[f.Path] = true
	}
	return at, paths
}

// cover adds the bytes of f to the spans.
func (d *fieldDiff) cover(f describe.Field) {
	if f.Offset >= 0 {
		d.spans = append(d.spans, [2]int64{f.Offset, f.Offset + max(f.Size, 1)})
	}
	d.spans = append(d.spans, f.Spans...)
}

// fromA reports each field of fa against fb: a path only in A (once), a
// field only in A, a value that changed, or a field that moved (once per
// path).
func (d *fieldDiff) fromA(fa, fb []describe.Field) {
	byB, pathsB := indexFields(fb)
	seenOnly := map[string]bool{}
	moved := map[string]bool{}
	for _, f := range fa {
		if !pathsB[f.Path] {
			d.cover(f)
			if !seenOnly[f.Path] {
				seenOnly[f.Path] = true
				d.r.add(Change{Kind: KindOnlyA, Path: f.Path, OffA: f.Offset, OffB: -1})
			}
			continue
		}
		i, ok := byB[fieldKey{f.Path, f.Name}]
		if !ok {
			d.cover(f)
			d.r.add(Change{Kind: KindField, Path: f.Path, Field: f.Name, OffA: f.Offset, OffB: -1, Old: f.Value, New: "(none)"})
			continue
		}
		g := fb[i]
		switch {
		case f.Value != g.Value:
			d.cover(f)
			d.cover(g)
			c := Change{Kind: KindField, Path: f.Path, Field: f.Name, OffA: f.Offset, OffB: g.Offset, Old: f.Value, New: g.Value}
			if f.Name == "data" {
				c.Comment = firstDifference(d.fsA, d.fsB, f.Path)
			}
			d.r.add(c)
		case f.Offset != g.Offset || !slices.Equal(f.Spans, g.Spans):
			d.cover(f)
			d.cover(g)
			if !moved[f.Path] {
				moved[f.Path] = true
				d.r.add(Change{Kind: KindMoved, Path: f.Path, Field: f.Name, OffA: f.Offset, OffB: g.Offset, SpansA: f.Spans, SpansB: g.Spans})
			}
		}
	}
}

// fromB reports what fb has and fa lacks: a path only in B (once), or a
// field only in B.
func (d *fieldDiff) fromB(fa, fb []describe.Field) {
	keysA, pathsA := indexFields(fa)
	seenOnly := map[string]bool{}
	for _, g := range fb {
		if !pathsA[g.Path] {
			d.cover(g)
			if !seenOnly[g.Path] {
				seenOnly[g.Path] = true
				d.r.add(Change{Kind: KindOnlyB, Path: g.Path, OffA: -1, OffB: g.Offset})
			}
			continue
		}
		if _, ok := keysA[fieldKey{g.Path, g.Name}]; !ok {
			d.cover(g)
			d.r.add(Change{Kind: KindField, Path: g.Path, Field: g.Name, OffA: -1, OffB: g.Offset, Old: "(none)", New: g.Value})
		}
	}
}

// firstDifference reads the file p (a Field path) from both file systems
// and says where its contents first differ.
func firstDifference(fsA, fsB fs.FS, p string) string {
	if fsA == nil || fsB == nil {
		return ""
	}
	name := strings.TrimPrefix(p, "/")
	if !fs.ValidPath(name) {
		return ""
	}
	const limit = 256 << 20
	ia, errA := fs.Stat(fsA, name)
	ib, errB := fs.Stat(fsB, name)
	if errA != nil || errB != nil || ia.Size() > limit || ib.Size() > limit {
		return ""
	}
	da, errA := fs.ReadFile(fsA, name)
	db, errB := fs.ReadFile(fsB, name)
	if errA != nil || errB != nil {
		return ""
	}
	n := min(len(da), len(db))
	for i := 0; i < n; i++ {
		if da[i] != db[i] {
			return "contents first differ at byte " + strconv.Itoa(i) + " of the file"
		}
	}
	return "one file's contents are a prefix of the other's"
}

// byteRanges returns the [start, end) ranges where a and b differ,
// merging ranges less than 16 bytes apart; bytes beyond the shorter file
// make one last range.
func byteRanges(a io.ReaderAt, sizeA int64, b io.ReaderAt, sizeB int64) ([][2]int64, error) {
	const chunk = 64 << 10
	bufA, bufB := make([]byte, chunk), make([]byte, chunk)
	var ranges [][2]int64
	addRange := func(s, e int64) {
		if k := len(ranges); k > 0 && s-ranges[k-1][1] < 16 {
			ranges[k-1][1] = e
			return
		}
		ranges = append(ranges, [2]int64{s, e})
	}
	n := min(sizeA, sizeB)
	for off := int64(0); off < n && len(ranges) < maxRanges; off += chunk {
		m := int(min(chunk, n-off))
		if _, err := a.ReadAt(bufA[:m], off); err != nil && err != io.EOF {
			return nil, err
		}
		if _, err := b.ReadAt(bufB[:m], off); err != nil && err != io.EOF {
			return nil, err
		}
		if bytes.Equal(bufA[:m], bufB[:m]) {
			continue
		}
		for i := 0; i < m; i++ {
			if bufA[i] == bufB[i] {
				continue
			}
			j := i + 1
			for j < m && bufA[j] != bufB[j] {
				j++
			}
			addRange(off+int64(i), off+int64(j))
			i = j
		}
	}
	if sizeA != sizeB {
		addRange(n, max(sizeA, sizeB))
	}
	return ranges, nil
}

// addRanges records the differing byte ranges that no reported change
// explains.
// At most maxByteLines ranges are listed; the rest are summed up in one
// line.
func (r *Report) addRanges(ranges, covered [][2]int64, sizeA, sizeB int64, parsed bool) {
	const maxByteLines = 32
	r.parsed = parsed
	lines, restN, restBytes := 0, 0, int64(0)
	for _, rg := range ranges {
		if overlaps(covered, rg) {
			continue
		}
		if lines == maxByteLines {
			restN++
			restBytes += rg[1] - rg[0]
			continue
		}
		lines++
		c := Change{Kind: KindBytes, OffA: rg[0], OffB: rg[0], Len: rg[1] - rg[0]}
		if rg[0] >= min(sizeA, sizeB) {
			c.Comment = "only in the longer file"
		}
		r.add(c)
	}
	if restN > 0 {
		r.add(Change{Kind: KindBytes, OffA: -1, OffB: -1, Len: restBytes, Old: strconv.Itoa(restN)})
	}
}

// mergeSpans sorts spans and merges those that overlap or touch.
func mergeSpans(spans [][2]int64) [][2]int64 {
	slices.SortFunc(spans, func(x, y [2]int64) int { return cmpInt(x[0], y[0]) })
	var out [][2]int64
	for _, s := range spans {
		if k := len(out); k > 0 && s[0] <= out[k-1][1] {
			out[k-1][1] = max(out[k-1][1], s[1])
			continue
		}
		out = append(out, s)
	}
	return out
}

// overlaps reports whether rg overlaps any of the merged spans.
func overlaps(spans [][2]int64, rg [2]int64) bool {
	i, _ := slices.BinarySearchFunc(spans, rg[0], func(s [2]int64, t int64) int {
		if s[1] <= t {
			return -1
		}
		return 1
	})
	return i < len(spans) && spans[i][0] < rg[1]
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Write prints the report for people: a first line naming the files and
// their formats, then one line per change, indented. nameA and nameB are
// the files' names as the user gave them.
func (r *Report) Write(w io.Writer, nameA, nameB string) error {
	var b strings.Builder
	if r.Same {
		fmt.Fprintf(&b, "%s and %s are identical\n", nameA, nameB)
		_, err := io.WriteString(w, b.String())
		return err
	}
	fmt.Fprintf(&b, "%s and %s differ", nameA, nameB)
	switch {
	case r.FormatA != "" && r.FormatA == r.FormatB && r.SummaryA != "":
		if r.SummaryA == r.SummaryB {
			fmt.Fprintf(&b, " (%s, %s)", r.FormatA, r.SummaryA)
		} else {
			fmt.Fprintf(&b, " (%s: %s vs %s)", r.FormatA, r.SummaryA, r.SummaryB)
		}
	case r.FormatA != "" || r.FormatB != "":
		fmt.Fprintf(&b, " (%s vs %s)", orUnknown(r.FormatA), orUnknown(r.FormatB))
	}
	b.WriteString(":\n")
	for _, p := range []struct {
		name string
		err  error
	}{{nameA, r.ParseErrA}, {nameB, r.ParseErrB}} {
		if p.err != nil {
			fmt.Fprintf(&b, "  %s%s: cannot be described: %v\n", p.name, formatErrorPlace(p.err), p.err)
		}
	}
	for _, c := range r.Changes {
		b.WriteString("  ")
		switch c.Kind {
		case KindSize:
			fmt.Fprintf(&b, "file size: %s -> %s", c.Old, c.New)
		case KindField:
			fmt.Fprintf(&b, "%s: %s%s: %s -> %s", c.Path, c.Field, at(c.OffA, c.OffB), c.Old, c.New)
		case KindOnlyA:
			fmt.Fprintf(&b, "%s: only in %s%s", c.Path, nameA, at(c.OffA, -1))
		case KindOnlyB:
			fmt.Fprintf(&b, "%s: only in %s%s", c.Path, nameB, at(c.OffB, -1))
		case KindMoved:
			fmt.Fprintf(&b, "%s: moved from %s to %s (%s)", c.Path, place(c.OffA, c.SpansA), place(c.OffB, c.SpansB), c.Field)
		case KindBytes:
			where := ""
			if r.parsed {
				where = " outside the fields above"
			}
			if c.OffA < 0 {
				fmt.Fprintf(&b, "%s more ranges (%s) differ%s", c.Old, sizeString(c.Len), where)
			} else {
				fmt.Fprintf(&b, "bytes %s-%s (%s) differ%s", hexOff(c.OffA), hexOff(c.OffA+c.Len-1), sizeString(c.Len), where)
			}
		}
		if c.Comment != "" {
			b.WriteString("; " + c.Comment)
		}
		b.WriteByte('\n')
	}
	if r.Omitted > 0 {
		fmt.Fprintf(&b, "  ... and %d more differences\n", r.Omitted)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown format"
	}
	return s
}

// at formats " at byte 0x1a" or " at byte 0x1a (0x2a in the second file)".
// formatErrorPlace says where the *imgfmt.FormatError that err wraps
// lies, as a field's place is said: ": HeaderCRC32 at byte 0x210", or ""
// when err has no place.
func formatErrorPlace(err error) string {
	var fe *imgfmt.FormatError
	if !errors.As(err, &fe) {
		return ""
	}
	if w := fe.Where(); w != "" {
		return ": " + w
	}
	return ""
}

func at(offA, offB int64) string {
	switch {
	case offA < 0 && offB < 0:
		return ""
	case offA < 0:
		return " at byte " + hexOff(offB) + " of the second file"
	case offB < 0 || offB == offA:
		return " at byte " + hexOff(offA)
	}
	return " at byte " + hexOff(offA) + " (" + hexOff(offB) + " in the second file)"
}

// maxPlaceRanges bounds the byte ranges place lists.
const maxPlaceRanges = 3

// place formats where a field lies: "byte 0x1a" for one at an offset, or
// its spans, "bytes 0x8000-0x87ff, 0x9000-0x93ff", the first few of many
// followed by how many more and their total size.
func place(off int64, spans [][2]int64) string {
	if off >= 0 {
		return "byte " + hexOff(off)
	}
	if len(spans) == 0 {
		return "no bytes"
	}
	var b strings.Builder
	b.WriteString("bytes ")
	var rest int64
	for i, s := range spans {
		if i >= maxPlaceRanges {
			rest += s[1] - s[0]
			continue
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(hexOff(s[0]) + "-" + hexOff(s[1]-1))
	}
	if n := len(spans) - maxPlaceRanges; n > 0 {
		fmt.Fprintf(&b, " and %d more ranges (%s)", n, sizeString(rest))
	}
	return b.String()
}
