package mkimg

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
	"github.com/fixturegen/fixturegen/internal/tooltest"
)

// mkimgAliases are every partition type alias FreeBSD's mkimg knows
// (scheme.c's table), whatever the scheme. A scheme's aliases in the
// matrix are those its hasType accepts; TestMatrixAliases checks that
// freebsd-mkimg accepts exactly those for the scheme.
var mkimgAliases = []string{
	"ebr", "efi", "fat16b", "fat32", "fat32lba", "freebsd", "freebsd-boot",
	"freebsd-nandfs", "freebsd-swap", "freebsd-ufs", "freebsd-vinum",
	"freebsd-zfs", "mbr", "ms-basic-data", "ntfs", "prepboot",
}

// newerAliases are the aliases a scheme accepts because current FreeBSD
// does, which the reference freebsd-mkimg, older there, refuses (DETAILS.md's
// BSD and EBR section); the matrix leaves them out and TestMatrixAliases
// expects freebsd-mkimg to refuse them.
var newerAliases = map[string][]string{"ebr": {"fat32lba"}}

// matrixFiles are the partition files of the generated matrix, by name
// and size: one byte, an odd size, one 4 KiB sector, a size that is a
// whole number of neither 63-sector tracks nor 4 KiB sectors, 100000
// bytes, and an empty file.
var matrixFiles = map[string]int{
	"d": 1, "b": 777, "c": 4096, "t": 65*512 + 100, "a": 100000, "z": 0,
}

// matrixSizes are the ::SIZE contents of the generated matrix, mkimg's
// number syntax included, and 0.
var matrixSizes = []string{"1", "777", "100000", "3k", "1m", "0x801", "0"}

// matrixSeed fixes the generated matrix: every run, on every machine,
// compares the same command lines.
const matrixSeed = 21

// matrixRandom is how many random command lines the matrix adds for each
// scheme after the ones that cover every value of every dimension.
const matrixRandom = 120

// matrixSample is how sparsely TestMatrix samples the random command
// lines by default: one in matrixSample of each scheme's (tooltest.Sample),
// after every line that covers a value. FIXTUREGEN_LONG=1 runs them all.
const matrixSample = 6

// matrixCase is one generated mkimg command line, without -y and -o; its
// files are named relative to the directory matrixInputs fills.
type matrixCase struct {
	scheme string
	secsz  int
	args   []string
	// refused marks a command line past the scheme's limits, which
	// freebsd-mkimg must refuse.
	refused bool
	// random marks one of the matrixRandom lines drawn wholly at random.
	random bool
}

func (c matrixCase) String() string { return strings.Join(c.args, " ") }

// matrixGen draws the command lines of one scheme's part of the matrix.
type matrixGen struct {
	s       *scheme
	r       *rand.Rand
	secs    []int
	blocks  []int
	geoms   [][2]int
	boots   []int
	labels  []string
	aliases []string
	counts  []int
	content []string
	actives []int
}

// newMatrixGen lists the values of each dimension that scheme s allows:
// sector sizes up to its maximum, boot code only where it takes some,
// labels only where it has them (up to its maximum length), its aliases,
// and partition counts from 1 to its maximum.
func newMatrixGen(s *scheme, r *rand.Rand) *matrixGen {
	g := &matrixGen{s: s, r: r}
	for _, n := range []int{512, 4096} {
		if uint64(n) <= s.maxSectorSize {
			g.secs = append(g.secs, n)
		}
	}
	g.blocks = []int{0, 512, 4096, 65536}
	g.geoms = [][2]int{{0, 0}, {1, 1}, {16, 63}, {255, 63}, {2, 3}}
	g.boots = []int{0}
	if s.bootcode > 0 {
		g.boots = append(g.boots, 1, 300, s.bootcode)
	}
	g.labels = []string{""}
	if s.labelMax > 0 {
		max := strings.Repeat("abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", s.labelMax/62+1)
		for _, l := range []string{"a", "EFI-system_1.x", max[:s.labelMax], max[1:s.labelMax]} {
			if len(l) <= s.labelMax && !slices.Contains(g.labels, l) {
				g.labels = append(g.labels, l)
			}
		}
	}
	for _, a := range mkimgAliases {
		if s.hasType(a) && !slices.Contains(newerAliases[s.name], a) {
			g.aliases = append(g.aliases, a)
		}
	}
	if s.maxParts <= 8 {
		for n := 1; n <= s.maxParts; n++ {
			g.counts = append(g.counts, n)
		}
	} else {
		for _, n := range []int{1, 2, 3, 4, 7, 127, 128, 129} {
			if n < s.maxParts {
				g.counts = append(g.counts, n)
			}
		}
		g.counts = append(g.counts, s.maxParts)
	}
	for name := range matrixFiles {
		g.content = append(g.content, ":="+name)
	}
	slices.Sort(g.content)
	for _, sz := range matrixSizes {
		g.content = append(g.content, "::"+sz)
	}
	g.actives = []int{0, 1, 2, min(s.maxParts, 4)}
	return g
}

// pickOne returns a random element of vs.
func pickOne[T any](r *rand.Rand, vs []T) T { return vs[r.IntN(len(vs))] }

// matrixChoice is one command line's value of each dimension. A label,
// alias or content of "" means build draws one for each partition; one
// that is set goes to the first partition and to about half the others.
type matrixChoice struct {
	sec, block int
	geom       [2]int
	boot       int
	label      string
	alias      string
	count      int
	content    string
	active     int
}

// random draws every dimension.
func (g *matrixGen) random() matrixChoice {
	c := matrixChoice{
		sec:    pickOne(g.r, g.secs),
		block:  pickOne(g.r, g.blocks),
		geom:   pickOne(g.r, g.geoms),
		boot:   pickOne(g.r, g.boots),
		count:  pickOne(g.r, g.counts[:min(len(g.counts), 5)]),
		active: pickOne(g.r, g.actives),
	}
	if g.r.IntN(8) == 0 {
		c.count = pickOne(g.r, g.counts)
	}
	return c
}

// cases returns the scheme's command lines: first one for each value of
// each dimension, the others drawn at random, then matrixRandom drawn
// wholly at random. With short, only the first kind.
func (g *matrixGen) cases(short bool) []matrixCase {
	var out []matrixCase
	add := func(set func(*matrixChoice)) {
		c := g.random()
		set(&c)
		out = append(out, g.build(c))
	}
	for _, v := range g.secs {
		add(func(c *matrixChoice) { c.sec = v })
	}
	for _, v := range g.blocks {
		add(func(c *matrixChoice) { c.block = v })
	}
	for _, v := range g.geoms {
		add(func(c *matrixChoice) { c.geom = v })
	}
	for _, v := range g.boots {
		add(func(c *matrixChoice) { c.boot = v })
	}
	for _, v := range g.labels {
		add(func(c *matrixChoice) { c.label = v; c.count = min(c.count, 3) })
	}
	for _, v := range g.aliases {
		add(func(c *matrixChoice) { c.alias = v })
		add(func(c *matrixChoice) { c.alias = strings.ToUpper(v[:1]) + v[1:] })
	}
	for _, v := range g.counts {
		add(func(c *matrixChoice) { c.count = v })
	}
	for _, v := range g.content {
		add(func(c *matrixChoice) { c.content = v })
		if emptyContent(v) {
			add(func(c *matrixChoice) { c.content = v; c.count = 1 })
		}
	}
	for _, v := range g.actives {
		add(func(c *matrixChoice) { c.active = v })
	}
	out = append(out, g.refusals()...)
	if !short {
		for range matrixRandom {
			add(func(*matrixChoice) {})
			out[len(out)-1].random = true
		}
	}
	return out
}

// refusals returns command lines past the scheme's limits, which
// freebsd-mkimg refuses and the package must refuse too: sector sizes
// beyond its maximum, a label one byte too long (or any label where it
// has none), boot code one byte too long (or any where it takes none),
// one partition too many, an unknown type, a block smaller than the
// sector, and geometry and -a values out of range.
func (g *matrixGen) refusals() []matrixCase {
	alias := g.aliases[0]
	lines := [][]string{
		{"-p", "nosuch::1k"},
		{"-p", alias + "/" + strings.Repeat("L", g.s.labelMax+1) + "::1k"},
		{"-b", "boot" + strconv.Itoa(g.s.bootcode+1), "-p", alias + "::1k"},
		{"-H", "256", "-T", "63", "-p", alias + "::1k"},
		{"-H", "16", "-T", "64", "-p", alias + "::1k"},
		{"-a", "101", "-p", alias + "::1k"},
		{"-S", "1000", "-p", alias + "::1k"},
		{"-S", "4096", "-P", "512", "-p", alias + "::1k"},
	}
	for _, n := range []int{1024, 4096, 8192} {
		if uint64(n) > g.s.maxSectorSize {
			lines = append(lines, []string{"-S", strconv.Itoa(n), "-p", alias + "::1k"})
		}
	}
	var tooMany []string
	for range g.s.maxParts + 1 {
		tooMany = append(tooMany, "-p", alias+"::1")
	}
	lines = append(lines, tooMany)
	var out []matrixCase
	for _, l := range lines {
		out = append(out, matrixCase{scheme: g.s.name, secsz: 512, args: append([]string{"-s", g.s.name}, l...), refused: true})
	}
	return out
}

// build turns a choice into a command line, drawing what it leaves open
// for each partition: unused slots about one in six, the alias, the
// contents, and a label (where the scheme has them) about one in three.
// Large counts get small contents and blocks, so that every disk stays
// a few MiB.
func (g *matrixGen) build(c matrixChoice) matrixCase {
	if c.block != 0 && c.block < c.sec {
		c.block = c.sec
	}
	big := c.count > 200
	if big {
		c.block, c.geom = 0, [2]int{}
	}
	args := []string{"-s", g.s.name}
	if c.sec != 512 || g.r.IntN(4) == 0 {
		args = append(args, "-S", strconv.Itoa(c.sec))
	}
	if c.block != 0 {
		args = append(args, "-P", strconv.Itoa(c.block))
	}
	if c.geom != [2]int{} {
		args = append(args, "-H", strconv.Itoa(c.geom[0]), "-T", strconv.Itoa(c.geom[1]))
	}
	if c.boot != 0 {
		args = append(args, "-b", "boot"+strconv.Itoa(c.boot))
	}
	if c.active != 0 {
		args = append(args, "-a", strconv.Itoa(c.active))
	}
	for i := range c.count {
		if c.count > 1 && g.r.IntN(6) == 0 {
			args = append(args, "-p", "-")
			continue
		}
		typ := c.alias
		if typ == "" || (i > 0 && g.r.IntN(2) == 0) {
			typ = pickOne(g.r, g.aliases)
		}
		label := c.label
		if g.s.labelMax > 0 && label == "" && g.r.IntN(3) == 0 {
			label = pickOne(g.r, g.labels)
		}
		if label != "" {
			typ += "/" + label
		}
		content := c.content
		if content == "" || (i > 0 && g.r.IntN(2) == 0) {
			content = pickOne(g.r, g.content)
			for emptyContent(content) {
				content = pickOne(g.r, g.content)
			}
		}
		if big {
			content = pickOne(g.r, []string{"::1", "::777", ":=d", ":=b"})
		}
		args = append(args, "-p", typ+content)
	}
	return matrixCase{scheme: g.s.name, secsz: c.sec, args: args}
}

// emptyContent reports whether a partition's contents give it no sectors: the
// empty file or a size of 0. The matrix has few of these, as
// freebsd-mkimg refuses one that starts where the next partition does,
// and so does the package (checkOverlaps).
func emptyContent(content string) bool { return content == ":=z" || content == "::0" }

// matrixCases returns the whole generated matrix, scheme by scheme in
// Schemes' order, from matrixSeed and the scheme's name, so that a scheme's
// command lines stay the same when other schemes are added.
func matrixCases(short bool) []matrixCase {
	var out []matrixCase
	for _, name := range Schemes() {
		r := rand.New(rand.NewPCG(matrixSeed, uint64(crc32.ChecksumIEEE([]byte(name)))))
		out = append(out, newMatrixGen(schemes[name], r).cases(short)...)
	}
	return out
}

// matrixInputs writes matrixFiles and boot code files of 1 and 300 bytes
// and of each scheme's maximum into dir.
func matrixInputs(t *testing.T, dir string) {
	t.Helper()
	files := map[string]int{"boot1": 1, "boot300": 300}
	for _, s := range schemes {
		files["boot"+strconv.Itoa(s.bootcode+1)] = s.bootcode + 1
	}
	for name, n := range matrixFiles {
		files[name] = n
	}
	for _, s := range schemes {
		if s.bootcode > 0 {
			files["boot"+strconv.Itoa(s.bootcode)] = s.bootcode
		}
	}
	for name, n := range files {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i*131 + len(name)*17 + int(name[0]) + 1)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMatrix compares, for every command line of the generated matrix,
// the package's disk with freebsd-mkimg -y's, byte for byte; where
// freebsd-mkimg refuses the command line, the package must refuse it
// too. A difference is explained in the scheme's own field names. By
// default it runs the lines that cover every value and one in
// matrixSample of the random ones, with -short none of these, and with
// FIXTUREGEN_LONG=1 all; a line's subtest has the same name in each.
func TestMatrix(t *testing.T) {
	t.Parallel()
	ref := tooltest.Need(t, "freebsd-mkimg")
	dir := t.TempDir()
	matrixInputs(t, dir)
	cases := matrixCases(testing.Short())
	seen := map[string]bool{}
	n := map[string]int{}
	random := map[string]int{}
	ran := 0
	for _, c := range cases {
		line := c.String()
		if seen[line] {
			continue
		}
		seen[line] = true
		n[c.scheme]++
		if c.random {
			random[c.scheme]++
			if !tooltest.Sample(random[c.scheme]-1, matrixSample) {
				continue
			}
		}
		ran++
		t.Run(fmt.Sprintf("%s-%03d", c.scheme, n[c.scheme]), func(t *testing.T) {
			t.Parallel()
			args := append(slices.Clone(c.args), "-y")
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("command line: freebsd-mkimg -y %s (in a directory of matrixInputs' files)", line)
				}
			})
			want := filepath.Join(t.TempDir(), "want.img")
			cmd := exec.Command(ref, append(args, "-o", want)...)
			cmd.Dir = dir
			out, refErr := cmd.CombinedOutput()
			if c.refused && refErr == nil {
				t.Fatal("freebsd-mkimg makes a disk of a command line past the scheme's limits")
			}
			var got []byte
			o, err := Parse(args)
			if err == nil {
				got, err = Build(matrixInDir(dir, o))
			}
			switch {
			case refErr != nil && err == nil:
				t.Fatalf("freebsd-mkimg refuses this command line (%v: %s) but Build made a disk of %d bytes", refErr, bytes.TrimSpace(out), len(got))
			case refErr != nil:
				return
			case err != nil:
				t.Fatalf("Build: %v; freebsd-mkimg makes this disk", err)
			}
			// The one deliberate difference: an empty partition's gpt or
			// mbr entry is left unused (emptyEntry, TestEmptyPartitions).
			// A disk with no such entry (withEmptyEntriesUnused gives it
			// back as it is) that is freebsd-mkimg's file byte for byte
			// passes without reading the file into memory.
			if d, err := tooltest.FirstDiffBytes(want, got); err == nil && d < 0 && bytes.Equal(withEmptyEntriesUnused(t, c.scheme, c.secsz, got), got) {
				return
			}
			wantBytes, err := os.ReadFile(want)
			if err != nil {
				t.Fatal(err)
			}
			wantBytes = withEmptyEntriesUnused(t, c.scheme, c.secsz, wantBytes)
			if msg := explainDiff(c.scheme, c.secsz, got, wantBytes); msg != "" {
				t.Error(msg)
			}
		})
	}
	tooltest.Sampled(t, ran, len(seen))
}

// matrixInDir makes o's relative partition and boot code files relative
// to dir, and returns o.
func matrixInDir(dir string, o *Options) *Options {
	for i := range o.Partitions {
		if f := o.Partitions[i].File; f != "" && !filepath.IsAbs(f) {
			o.Partitions[i].File = filepath.Join(dir, f)
		}
	}
	if o.Bootcode != "" && !filepath.IsAbs(o.Bootcode) {
		o.Bootcode = filepath.Join(dir, o.Bootcode)
	}
	return o
}

// TestMatrixSize checks that the generated matrix is deterministic, holds
// a few hundred distinct command lines, and covers what it claims for each
// scheme: every alias hasType accepts, the largest partition count, and,
// where the scheme has them, labels of its maximum length and the largest
// boot code.
func TestMatrixSize(t *testing.T) {
	t.Parallel()
	a, b := matrixCases(false), matrixCases(false)
	if !slices.EqualFunc(a, b, func(x, y matrixCase) bool { return x.String() == y.String() }) {
		t.Fatal("two generations of the matrix differ")
	}
	distinct := map[string]bool{}
	for _, c := range a {
		distinct[c.String()] = true
	}
	if n := len(distinct); n < 100*len(schemes) {
		t.Errorf("%d distinct command lines for %d schemes; want at least 100 each", n, len(schemes))
	}
	for _, name := range Schemes() {
		s := schemes[name]
		var lines []string
		for _, c := range a {
			if c.scheme == name && !c.refused {
				lines = append(lines, " "+c.String()+" ")
			}
		}
		all := strings.Join(lines, "\n")
		for _, alias := range mkimgAliases {
			if s.hasType(alias) && !slices.Contains(newerAliases[name], alias) && !strings.Contains(all, " -p "+alias+":") && !strings.Contains(all, " -p "+alias+"/") {
				t.Errorf("%s: no command line has type %s", name, alias)
			}
		}
		most := 0
		for _, l := range lines {
			most = max(most, strings.Count(l, " -p "))
		}
		if most != s.maxParts {
			t.Errorf("%s: at most %d partitions in a command line; the scheme holds %d", name, most, s.maxParts)
		}
		if s.labelMax > 0 && !strings.Contains(all, "/"+strings.Repeat("abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", 2)[:s.labelMax]+":") {
			t.Errorf("%s: no label of the maximum %d bytes", name, s.labelMax)
		}
		if s.bootcode > 0 && !strings.Contains(all, " -b boot"+strconv.Itoa(s.bootcode)+" ") {
			t.Errorf("%s: no boot code of the maximum %d bytes", name, s.bootcode)
		}
	}
}

// TestMatrixAliases checks the scheme table's hasType against
// freebsd-mkimg: for every scheme and every alias FreeBSD's mkimg knows,
// freebsd-mkimg accepts the alias for the scheme exactly when hasType
// does, so that the matrix, which takes its aliases from hasType, covers
// every alias the scheme has.
func TestMatrixAliases(t *testing.T) {
	t.Parallel()
	ref := tooltest.Need(t, "freebsd-mkimg")
	for _, name := range Schemes() {
		s := schemes[name]
		for _, alias := range append(slices.Clone(mkimgAliases), "nosuch") {
			t.Run(name+"/"+alias, func(t *testing.T) {
				t.Parallel()
				out := filepath.Join(t.TempDir(), "disk.img")
				msg, err := exec.Command(ref, "-y", "-s", name, "-p", alias+"::1k", "-o", out).CombinedOutput()
				newer := slices.Contains(newerAliases[name], alias)
				if got, want := s.hasType(alias), err == nil || newer; got != want || (newer && err == nil) {
					t.Errorf("hasType(%q) = %v, but freebsd-mkimg -s %s -p %s::1k: %v %s", alias, got, name, alias, err, bytes.TrimSpace(msg))
				}
			})
		}
	}
}

// explainDiff returns "" when got and want are the same disk, or else a
// message giving the sizes, how many bytes differ, and the first runs of
// differing bytes, each named by explainField in the reader's Fields of
// want.
func explainDiff(schemeName string, secsz int, got, want []byte) string {
	if bytes.Equal(got, want) {
		return ""
	}
	var b strings.Builder
	if len(got) != len(want) {
		fmt.Fprintf(&b, "disk is %d bytes, freebsd-mkimg's %d\n", len(got), len(want))
	}
	fields, err := Fields(bytes.NewReader(want), int64(len(want)), nil)
	n := min(len(got), len(want))
	differing, runs := 0, 0
	for off := 0; off < n; off++ {
		if got[off] == want[off] {
			continue
		}
		differing++
		if runs >= 8 || (off > 0 && got[off-1] != want[off-1]) {
			continue
		}
		runs++
		end := off
		for end < n && got[end] != want[end] && end-off < 16 {
			end++
		}
		fmt.Fprintf(&b, "byte %#x (LBA %d + %d): %s: got % x, want % x\n", off, off/secsz, off%secsz,
			explainField(fields, err, schemeName, secsz, int64(off)), got[off:end], want[off:end])
	}
	if differing > 0 {
		fmt.Fprintf(&b, "%d bytes differ in all\n", differing)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// explainOffset says what lies at byte off of disk, a disk of the named
// scheme with secsz-byte sectors, in the names the package's reader (and
// so `fixturegen diff`) gives the disk's fields: which structure and
// which field, or which partition's data.
func explainOffset(schemeName string, secsz int, disk []byte, off int64) string {
	fields, err := Fields(bytes.NewReader(disk), int64(len(disk)), nil)
	return explainField(fields, err, schemeName, secsz, off)
}

// explainField names the smallest of fields holding byte off, as "Path
// Name", with the byte's place in it when the field is longer than one
// byte; a byte no field holds, or of a disk the reader refused with err,
// is named by its sector.
func explainField(fields []describe.Field, err error, schemeName string, secsz int, off int64) string {
	sector := fmt.Sprintf("%s disk, LBA %d byte %d", schemeName, off/int64(secsz), off%int64(secsz))
	if err != nil {
		return fmt.Sprintf("%s (the reader refuses the disk: %v)", sector, err)
	}
	var best *describe.Field
	var bestSize, bestAt int64
	for i := range fields {
		f := &fields[i]
		size, at, ok := fieldByte(f, off)
		if ok && (best == nil || size < bestSize) {
			best, bestSize, bestAt = f, size, at
		}
	}
	switch {
	case best == nil:
		return sector + ", in none of the reader's fields"
	case bestSize == 1:
		return best.Path + " " + best.Name
	}
	return fmt.Sprintf("%s %s byte %d", best.Path, best.Name, bestAt)
}

// fieldByte reports whether field f holds byte off of the disk, and if
// so f's size and off's place in it; a field spread over Spans counts
// its spans' bytes in order.
func fieldByte(f *describe.Field, off int64) (size, at int64, ok bool) {
	if f.Offset >= 0 {
		return f.Size, off - f.Offset, off >= f.Offset && off < f.Offset+f.Size
	}
	for _, s := range f.Spans {
		if off >= s[0] && off < s[1] {
			at, ok = size+off-s[0], true
		}
		size += s[1] - s[0]
	}
	return size, at, ok
}

// TestExplainOffset checks that explainOffset names known offsets of a
// disk of every scheme by the reader's field, as `fixturegen diff` names
// them (the structure's Path and the field's Name, with the byte's place
// in it), a partition's data by its /pN path, and a byte of no field, or
// of a disk without a table, by its sector.
func TestExplainOffset(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inputs(t, dir)
	build := func(line string) []byte { return mustBuild(t, parseIn(t, dir, strings.Fields(line))) }
	gpt := build("-s gpt -y -p efi/ESP:=a -p - -p freebsd-ufs::1m")
	mbr := build("-s mbr -S 4096 -p freebsd:=a -p - -p efi:=d")
	apm := build("-s apm -p freebsd-ufs/root:=a -p freebsd-swap::1m")
	bsd := build("-s bsd -p freebsd-ufs:=a -p freebsd-swap::1m")
	ebr := build("-s ebr -p freebsd:=a -p fat32:=b")
	vtoc8 := build("-s vtoc8 -p freebsd-ufs:=a -p freebsd-swap::1m")
	last := int64(len(gpt)) - 512
	for _, c := range []struct {
		scheme string
		secsz  int
		disk   []byte
		off    int64
		want   string
	}{
		{"gpt", 512, gpt, 446 + 4, "protective MBR partition record 1 OSType"},
		{"gpt", 512, gpt, 446 + 16 + 4, "gpt disk, LBA 0 byte 466, in none of the reader's fields"},
		{"gpt", 512, gpt, 510, "protective MBR Signature byte 0"},
		{"gpt", 512, gpt, 512 + 17, "GPT header HeaderCRC32 byte 1"},
		{"gpt", 512, gpt, 512 + 100, "gpt disk, LBA 1 byte 100, in none of the reader's fields"},
		{"gpt", 512, gpt, 1024 + 2*128 + 40, "GPT partition entry 3 EndingLBA byte 0"},
		{"gpt", 512, gpt, 1024 + 56 + 2, "GPT partition entry 1 PartitionName byte 2"},
		{"gpt", 512, gpt, 1024 + 128 + 5, "GPT header GPT Partition Entry Array byte 133"},
		{"gpt", 512, gpt, last + 88, "backup GPT header PartitionEntryArrayCRC32 byte 0"},
		{"gpt", 512, gpt, last - 32*512 + 128 + 16, "backup GPT header GPT Partition Entry Array byte 144"},
		{"gpt", 512, gpt, 34*512 + 5, "/p1 data byte 5"},
		{"mbr", 4096, mbr, 446 + 2*16 + 8, "MBR partition record 3 StartingLBA byte 0"},
		{"mbr", 4096, mbr, 440, "MBR UniqueMBRDiskSignature byte 0"},
		{"mbr", 4096, mbr, 446 + 16 + 4, "mbr disk, LBA 0 byte 466, in none of the reader's fields"},
		{"apm", 512, apm, 2, "driver descriptor record sbBlkSize byte 0"},
		{"apm", 512, apm, 1024 + 16 + 3, "partition map entry 2 pmPartName byte 3"},
		{"apm", 512, apm, 102400 + 9, "/p2 data byte 9"},
		{"bsd", 512, bsd, 512 + 136, "disklabel d_checksum byte 0"},
		{"bsd", 512, bsd, 512 + 148 + 16 + 12, "d_partitions[1] p_fstype"},
		{"bsd", 512, bsd, 8192, "/p1 data byte 0"},
		{"ebr", 512, ebr, 446 + 16 + 8, "MBR partition record 2 StartingLBA byte 0"},
		{"vtoc8", 512, vtoc8, 508 + 1, "disk label magic byte 1"},
		{"vtoc8", 512, vtoc8, 444 + 4, "partition 0 nblk byte 0"},
		{"vtoc8", 512, vtoc8, 512 + 1000, "/p1 data byte 1000"},
		{"nosuch", 512, make([]byte, 4096), 1030, "nosuch disk, LBA 2 byte 6 (the reader refuses the disk: "},
	} {
		if got := explainOffset(c.scheme, c.secsz, c.disk, c.off); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s offset %#x: %q, want %q", c.scheme, c.off, got, c.want)
		}
	}
	changed := slices.Clone(gpt)
	changed[512+80]++
	msg := explainDiff("gpt", 512, changed, gpt)
	if !strings.Contains(msg, ": GPT header NumberOfPartitionEntries byte 0:") || !strings.Contains(msg, "1 bytes differ") {
		t.Errorf("explainDiff of one changed header byte: %s", msg)
	}
	if msg := explainDiff("gpt", 512, gpt, gpt); msg != "" {
		t.Errorf("explainDiff of equal disks: %s", msg)
	}
}
