package cli

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/fixturegen/fixturegen/imgkit/inspect"
)

func init() {
	register(command{
		Name:    "build",
		Usage:   "build [-C dir] [-j N] [-q] [-update] [-hash] [-force] [-clean] [name ...]",
		Summary: "build the fixture catalogue that a fixtures/manifest describes",
		Help:    buildHelp,
		Run:     runBuild,
	})
}

const buildHelp = `build runs every entry of the manifest (or only the named ones) and checks
each output against fixtures.sum, beside the manifest. With -update it
records the outputs' sizes and SHA-256 sums there instead. An output whose
sum does not match is explained field by field against the file that was
at its path before the build, when there was one (see "fixturegen diff").

The manifest is found in -C dir, or else in the fixtures folder of the
working directory or of the nearest parent, up to the module root (the
folder holding go.mod). It is plain text: '#' starts a comment, a line
ending in '\' continues on the next, and each entry reads

	NAME: COMMAND ARGS...

where COMMAND is a fixturegen command (makefs, ar) run in the manifest's
folder, NAME is the output it writes, given among ARGS, relative to that
folder. ARGS are split as a shell would, with '...' and "..." quotes.
SOURCE_DATE_EPOCH is unset for every entry; use -T for fixed times.

An entry's inputs are the ARGS that name existing files or directories
(directories with everything under them). An entry whose command line,
inputs (paths, sizes, modification times, modes), output and recorded sum
are unchanged since its last build is not rebuilt: checking costs about
one stat per input and output. -hash compares the inputs' contents instead
of their modification times; -force rebuilds everything. What the last
build saw is kept in .fixturegen-state beside the manifest (do not commit
it). An entry may use the output of an earlier entry as an input.

-clean removes the outputs (all, or the named ones) and the build state
instead of building; fixtures.sum and the inputs stay.

-j N runs up to N entries at once (default: the number of CPUs); the
outputs do not depend on it. On a terminal, a build that takes more than
a second shows its progress on standard error, unless -q. The last line
says how many outputs were built, were up to date and failed; -q prints
only errors.

fixtures.sum holds one line per output, sorted: NAME SIZE sha256:HEX.
`

const (
	manifestName = "manifest"
	sumName      = "fixtures.sum"
	stateName    = ".fixturegen-state"
)

// manifestEntry is one NAME: COMMAND ARGS... line of a manifest.
type manifestEntry struct {
	Line int    // first line of the entry, from 1
	Name string // output path, slash-separated, relative to the manifest folder
	Args []string
}

// sumEntry is one line of fixtures.sum.
type sumEntry struct {
	Size int64
	Hash string // "sha256:" and 64 lower-case hex digits
}

func (s sumEntry) String() string { return strconv.FormatInt(s.Size, 10) + " " + s.Hash }

// buildFlags are the options of build and verify.
type buildFlags struct {
	dir                        string
	jobs                       int
	quiet, update, hash, force bool
	clean                      bool
	names                      []string
}

// parseBuildFlags parses args with the options build and verify share (-C,
// -j, -q) added to fl, which holds the command's own, and takes the entry
// names that follow them.
func parseBuildFlags(fl *flag.FlagSet, o *buildFlags, args []string) error {
	fl.SetOutput(io.Discard)
	fl.StringVar(&o.dir, "C", "", "")
	fl.IntVar(&o.jobs, "j", runtime.GOMAXPROCS(0), "")
	fl.BoolVar(&o.quiet, "q", false, "")
	if err := fl.Parse(args); err != nil {
		return usagef("%s: %v", fl.Name(), err)
	}
	if o.jobs < 1 {
		return usagef("%s: -j %d: want at least 1", fl.Name(), o.jobs)
	}
	o.names = fl.Args()
	return nil
}

func runBuild(e *env, args []string) error {
	fl := flag.NewFlagSet("build", flag.ContinueOnError)
	var o buildFlags
	fl.BoolVar(&o.update, "update", false, "")
	fl.BoolVar(&o.hash, "hash", false, "")
	fl.BoolVar(&o.force, "force", false, "")
	fl.BoolVar(&o.clean, "clean", false, "")
	if err := parseBuildFlags(fl, &o, args); err != nil {
		return err
	}
	if o.clean && (o.update || o.force || o.hash) {
		return usagef("build: -clean does not go with -update, -force or -hash")
	}
	cat, err := loadCatalog(e, "build", o.dir)
	if err != nil {
		return err
	}
	if o.clean {
		return cleanCatalog(e, cat, o)
	}
	b := &builder{
		e: e, cat: cat, flags: o, cmd: "build",
		dir:         cat.dir,
		incremental: true,
	}
	return b.run()
}

// cleanCatalog removes the selected outputs, their temporary files and,
// for a full clean, the build state.
func cleanCatalog(e *env, cat *catalog, o buildFlags) error {
	sel, err := cat.selectEntries("build", o.names)
	if err != nil {
		return err
	}
	removed := 0
	for _, m := range sel {
		p := filepath.Join(cat.dir, filepath.FromSlash(m.Name))
		tmp := filepath.Join(filepath.Dir(p), "."+filepath.Base(p)+".build.tmp")
		os.Remove(tmp)
		switch err := os.Remove(p); {
		case err == nil:
			removed++
		case !errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("build: %v", err)
		}
	}
	if len(o.names) == 0 {
		if err := os.Remove(filepath.Join(cat.dir, stateName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("build: %v", err)
		}
	}
	if !o.quiet {
		fmt.Fprintf(e.Stdout, "build: removed %d of %d outputs\n", removed, len(sel))
	}
	return nil
}

// catalog is a manifest with its sums.
type catalog struct {
	dir     string // the manifest's folder, absolute
	entries []manifestEntry
	sums    map[string]sumEntry
}

// loadCatalog finds and reads the manifest and fixtures.sum.
func loadCatalog(e *env, cmd, dirFlag string) (*catalog, error) {
	dir, err := findManifestDir(e, cmd, dirFlag)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(dir, manifestName))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", cmd, err)
	}
	entries, err := parseManifest(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", cmd, err)
	}
	sums, err := readSums(filepath.Join(dir, sumName))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", cmd, err)
	}
	return &catalog{dir: dir, entries: entries, sums: sums}, nil
}

// selectEntries returns the entries named (all when names is empty).
func (c *catalog) selectEntries(cmd string, names []string) ([]manifestEntry, error) {
	if len(names) == 0 {
		return c.entries, nil
	}
	var sel []manifestEntry
	for _, n := range names {
		i := slices.IndexFunc(c.entries, func(m manifestEntry) bool { return m.Name == path.Clean(filepath.ToSlash(n)) })
		if i < 0 {
			return nil, fmt.Errorf("%s: %s: not in %s", cmd, n, manifestName)
		}
		if !slices.ContainsFunc(sel, func(m manifestEntry) bool { return m.Name == c.entries[i].Name }) {
			sel = append(sel, c.entries[i])
		}
	}
	return sel, nil
}

// builder runs the entries of a catalogue.
type builder struct {
	e     *env
	cat   *catalog
	flags buildFlags
	cmd   string // "build" or "verify", for messages
	dir   string // where the entries run and write their outputs (the manifest folder, or verify's copy)

	incremental bool // consult and update the state file
	// compareDir, when set, is the folder whose existing outputs a
	// mismatching output is explained against (verify: the manifest folder).
	compareDir string

	state    *buildState
	progress *progress
	// produced holds the sums of the outputs made (or found up to date)
	// in this run, by name: an entry that uses another's output depends
	// on its sum, not on its modification time, which a fast rebuild may
	// leave unchanged.
	produced sync.Map
}

// entryResult is what happened to one entry.
type entryResult struct {
	status   int  // statusBuilt, statusUpToDate, statusFailed
	produced bool // the output exists (it may still fail its sum check)
	sum      sumEntry
	out      bytes.Buffer // the command's standard output, and build's line
	errs     []string     // error lines (without "fixturegen: ")
	explain  string       // the structural diff of a mismatch, indented
}

const (
	statusBuilt = iota
	statusUpToDate
	statusFailed
)

func (b *builder) run() error {
	cmd := b.cmd
	sel, err := b.cat.selectEntries(cmd, b.flags.names)
	if err != nil {
		return err
	}
	deps, err := b.dependencies(sel)
	if err != nil {
		return err
	}
	if b.incremental {
		b.state = readState(filepath.Join(b.cat.dir, stateName))
		b.state.generator = generatorID()
	}
	results := make([]*entryResult, len(sel))
	done := make([]chan struct{}, len(sel))
	for i := range done {
		done[i] = make(chan struct{})
	}
	b.progress = startProgress(b.e.Stderr, len(sel), b.flags.quiet)
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(b.flags.jobs, len(sel)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				r := &entryResult{}
				failedDep := ""
				for _, d := range deps[i] {
					<-done[d]
					if !results[d].produced && failedDep == "" {
						failedDep = sel[d].Name
					}
				}
				if failedDep != "" {
					r.status = statusFailed
					r.errs = append(r.errs, fmt.Sprintf("%s: %s:%d: %s: not built: its input %s failed", cmd, manifestName, sel[i].Line, sel[i].Name, failedDep))
				} else {
					b.buildEntry(sel[i], r)
				}
				results[i] = r
				b.progress.done(r.sum.Size)
				close(done[i])
			}
		}()
	}
	for i := range sel {
		work <- i
	}
	close(work)
	wg.Wait()
	b.progress.stop()

	// Report in manifest order, whatever order the entries finished in.
	var built, upToDate, failed int
	have := map[string]sumEntry{}
	out := b.e.Stdout
	if b.flags.quiet {
		out = io.Discard
	}
	var stdout, stderr strings.Builder
	for i, r := range results {
		stdout.Write(r.out.Bytes())
		for _, l := range r.errs {
			stderr.WriteString("fixturegen: " + l + "\n")
		}
		stderr.WriteString(r.explain)
		switch r.status {
		case statusBuilt:
			built++
		case statusUpToDate:
			upToDate++
		case statusFailed:
			failed++
		}
		if r.status != statusFailed || r.sum.Hash != "" {
			have[sel[i].Name] = r.sum
		}
	}
	io.WriteString(out, stdout.String())
	io.WriteString(b.e.Stderr, stderr.String())

	if b.state != nil {
		lastCheckCalls.Store(b.state.stats.Load())
	}
	if b.state != nil && b.state.dirty {
		if err := b.state.write(filepath.Join(b.cat.dir, stateName)); err != nil {
			fmt.Fprintf(b.e.Stderr, "fixturegen: %s: %v\n", cmd, err)
		}
	}

	if b.flags.update && failed == 0 {
		sums := b.cat.sums
		changed := 0
		for n, s := range have {
			if old, ok := sums[n]; !ok || old != s {
				changed++
			}
		}
		if len(b.flags.names) == 0 {
			// A full build records exactly the manifest's outputs.
			for n := range sums {
				if _, ok := have[n]; !ok {
					changed++
				}
			}
			clear(sums)
		}
		for n, s := range have {
			sums[n] = s
		}
		if err := writeSums(filepath.Join(b.cat.dir, sumName), sums); err != nil {
			return fmt.Errorf("%s: %v", cmd, err)
		}
		fmt.Fprintf(out, "%s: %d built, %d up to date, 0 failed; %d sums changed in %s\n", cmd, built, upToDate, changed, sumName)
		return nil
	}

	var extra []string
	if len(b.flags.names) == 0 && !b.flags.update {
		for _, n := range sortedKeys(b.cat.sums) {
			if !slices.ContainsFunc(sel, func(m manifestEntry) bool { return m.Name == n }) {
				extra = append(extra, fmt.Sprintf("%s: %s: in %s but not in %s", cmd, n, sumName, manifestName))
			}
		}
	}
	for _, l := range extra {
		fmt.Fprintf(b.e.Stderr, "fixturegen: %s\n", l)
	}
	summary := fmt.Sprintf("%s: %d built, %d up to date, %d failed", cmd, built, upToDate, failed)
	if failed > 0 || len(extra) > 0 {
		if b.flags.update {
			return errors.New(summary)
		}
		return errors.New(summary + " (after a deliberate change, run fixturegen build -update to record new sums)")
	}
	fmt.Fprintln(out, summary)
	return nil
}

// dependencies returns, for each selected entry, the indexes of the
// selected entries whose outputs it takes as inputs. An entry may only use
// the outputs of entries above it in the manifest.
func (b *builder) dependencies(sel []manifestEntry) ([][]int, error) {
	outputs := map[string]int{}
	for i, m := range sel {
		outputs[m.Name] = i
	}
	lines := map[string]int{}
	for _, m := range b.cat.entries {
		lines[m.Name] = m.Line
	}
	deps := make([][]int, len(sel))
	for i, m := range sel {
		for _, a := range m.Args[1:] {
			rel := filepath.ToSlash(filepath.Clean(a))
			if rel == m.Name {
				continue
			}
			line, isOutput := lines[rel]
			if !isOutput {
				continue
			}
			if line > m.Line {
				return nil, fmt.Errorf("%s: %s:%d: %s: uses %s, which is built later, at line %d; move it up", b.cmd, manifestName, m.Line, m.Name, rel, line)
			}
			if d, ok := outputs[rel]; ok {
				deps[i] = append(deps[i], d)
			}
		}
	}
	return deps, nil
}

// buildEntry brings one entry up to date and checks its sum.
func (b *builder) buildEntry(m manifestEntry, r *entryResult) {
	cmd := b.cmd
	where := fmt.Sprintf("%s: %s:%d: %s", cmd, manifestName, m.Line, m.Name)
	fail := func(format string, args ...any) {
		r.status = statusFailed
		r.errs = append(r.errs, where+": "+fmt.Sprintf(format, args...))
	}
	outPath := filepath.Join(b.dir, filepath.FromSlash(m.Name))
	want, hasSum := b.cat.sums[m.Name]

	var key string
	if b.incremental {
		var err error
		key, err = b.state.key(b.dir, m, b.flags.hash, func(name string) (sumEntry, bool) {
			v, ok := b.produced.Load(name)
			if !ok {
				return sumEntry{}, false
			}
			return v.(sumEntry), true
		})
		if err != nil {
			fail("%v", err)
			return
		}
		if !b.flags.force {
			if s, ok := b.state.upToDate(m.Name, key, outPath); ok && (b.flags.update || (hasSum && s == want)) {
				r.status, r.sum, r.produced = statusUpToDate, s, true
				b.produced.Store(m.Name, s)
				return
			}
		}
	}

	// Build into a temporary name beside the output, so that a failed
	// command leaves the old output alone and the old one can explain a
	// mismatch.
	tmpName := path.Join(path.Dir(m.Name), "."+path.Base(m.Name)+".build.tmp")
	tmpPath := filepath.Join(b.dir, filepath.FromSlash(tmpName))
	os.Remove(tmpPath)
	args := slices.Clone(m.Args)
	for i := 1; i < len(args); i++ {
		if args[i] == m.Name || path.Clean(filepath.ToSlash(args[i])) == m.Name {
			args[i] = tmpName
			break
		}
	}
	var stderr bytes.Buffer
	sub := &env{
		Stdin:  strings.NewReader(""),
		Stdout: &r.out,
		Stderr: &stderr,
		Dir:    b.dir,
		Getenv: func(key string) string {
			if key == "SOURCE_DATE_EPOCH" {
				return ""
			}
			return b.e.getenv(key)
		},
	}
	err := run(sub, args)
	for _, l := range strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n") {
		if l != "" {
			r.errs = append(r.errs, where+": "+strings.TrimPrefix(l, "fixturegen: "))
		}
	}
	if err != nil {
		os.Remove(tmpPath)
		msg := strings.ReplaceAll(err.Error(), tmpName, m.Name)
		fail("%s", oneLine(msg))
		return
	}
	s, err := sumFile(tmpPath)
	if err != nil {
		os.Remove(tmpPath)
		fail("%v", err)
		return
	}
	r.sum = s
	compare := outPath
	if b.compareDir != "" {
		compare = filepath.Join(b.compareDir, filepath.FromSlash(m.Name))
	}
	if !b.flags.update {
		switch {
		case !hasSum:
			fail("not in %s", sumName)
		case s != want:
			fail("sum mismatch (have %s, want %s)", s, want)
			r.explain = explainMismatch(compare, tmpPath, m.Name)
		}
	}
	if err := os.Rename(tmpPath, outPath); err != nil {
		os.Remove(tmpPath)
		fail("%v", err)
		return
	}
	r.produced = true
	b.produced.Store(m.Name, s)
	if r.status != statusFailed {
		r.status = statusBuilt
	}
	if b.compareDir == "" {
		fmt.Fprintf(&r.out, "%s %s\n", m.Name, s)
	}
	if b.incremental {
		b.state.record(m.Name, key, outPath, s)
	}
}

// explainMismatch returns the structural diff between the file at old (the
// output as it was before the build, or the one verify compares with) and
// the new output, indented, or "" when there is no old file.
func explainMismatch(old, new, name string) string {
	fa, err := os.Open(old)
	if err != nil {
		return ""
	}
	defer fa.Close()
	fb, err := os.Open(new)
	if err != nil {
		return ""
	}
	defer fb.Close()
	ia, errA := fa.Stat()
	ib, errB := fb.Stat()
	if errA != nil || errB != nil || !ia.Mode().IsRegular() {
		return ""
	}
	rep, err := inspect.Diff(fa, ia.Size(), fb, ib.Size())
	if err != nil {
		return ""
	}
	var buf strings.Builder
	if rep.Same {
		fmt.Fprintf(&buf, "\t%s: the existing file has the new bytes already: fixtures.sum is what changed\n", name)
		return buf.String()
	}
	rep.Write(&buf, name+" (existing)", name+" (new)")
	var out strings.Builder
	for _, l := range strings.Split(strings.TrimRight(buf.String(), "\n"), "\n") {
		out.WriteString("\t" + l + "\n")
	}
	return out.String()
}

// findManifestDir returns the folder holding the manifest: dir when it is
// given, or else the fixtures folder of e.Dir or of its nearest parent that
// has one, looking no further up than the module root.
func findManifestDir(e *env, cmd, dir string) (string, error) {
	if dir != "" {
		dir = e.abs(dir)
		if _, err := os.Stat(filepath.Join(dir, manifestName)); err != nil {
			return "", fmt.Errorf("%s: -C %s: no %s there", cmd, dir, manifestName)
		}
		return dir, nil
	}
	for d := e.abs("."); ; {
		cand := filepath.Join(d, "fixtures")
		if fi, err := os.Stat(filepath.Join(cand, manifestName)); err == nil && fi.Mode().IsRegular() {
			return cand, nil
		}
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return "", fmt.Errorf("%s: no fixtures/%s in %s or its parents up to the module root; use -C dir", cmd, manifestName, e.abs("."))
}

// parseManifest reads the entries of a manifest.
func parseManifest(r io.Reader) ([]manifestEntry, error) {
	var entries []manifestEntry
	seen := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	lineNo, start := 0, 0
	var text strings.Builder
	for sc.Scan() {
		lineNo++
		if text.Len() == 0 {
			start = lineNo
		}
		line := sc.Text()
		if cont, ok := strings.CutSuffix(line, `\`); ok && !strings.HasSuffix(cont, `\`) {
			text.WriteString(cont)
			text.WriteByte(' ')
			continue
		}
		text.WriteString(line)
		full := text.String()
		text.Reset()
		words, err := splitWords(full)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", manifestName, start, err)
		}
		if len(words) == 0 {
			continue
		}
		name, ok := strings.CutSuffix(words[0], ":")
		if !ok || name == "" {
			return nil, fmt.Errorf("%s:%d: want a line \"NAME: COMMAND ARGS...\"", manifestName, start)
		}
		if !validName(name) {
			return nil, fmt.Errorf("%s:%d: %q: output name must be a clean relative slash-separated path", manifestName, start, name)
		}
		if prev, dup := seen[name]; dup {
			return nil, fmt.Errorf("%s:%d: %s: already built at line %d", manifestName, start, name, prev)
		}
		seen[name] = start
		args := words[1:]
		if len(args) == 0 {
			return nil, fmt.Errorf("%s:%d: %s: no command", manifestName, start, name)
		}
		switch args[0] {
		case "build", "verify", "help", "version", "diff", "ls", "cat":
			return nil, fmt.Errorf("%s:%d: %s: command %s cannot build a fixture", manifestName, start, name, args[0])
		}
		if !slices.ContainsFunc(args[1:], func(a string) bool { return a == name || path.Clean(filepath.ToSlash(a)) == name }) {
			return nil, fmt.Errorf("%s:%d: %s: the command line does not name its output %s", manifestName, start, name, name)
		}
		entries = append(entries, manifestEntry{Line: start, Name: name, Args: args})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %v", manifestName, lineNo+1, err)
	}
	if text.Len() > 0 {
		return nil, fmt.Errorf("%s:%d: '\\' continues past the last line", manifestName, start)
	}
	return entries, nil
}

// validName reports whether name is a clean, relative, slash-separated path
// that stays inside the manifest folder.
func validName(name string) bool {
	return path.Clean(name) == name && !path.IsAbs(name) && name != "." && name != ".." &&
		!strings.HasPrefix(name, "../") && !strings.Contains(name, `\`) && name != manifestName &&
		name != sumName && name != stateName
}

// splitWords splits a line into words as a POSIX shell would without
// expansions: blanks separate words, '...' quotes literally, "..." quotes
// with \" \\ \$ and \` as escapes, a backslash outside quotes escapes the
// next character, and an unquoted '#' starting a word begins a comment.
func splitWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '#' && !inWord:
			return words, nil
		case c == '\\':
			if i+1 >= len(s) {
				return nil, errors.New("'\\' at the end of the line")
			}
			i++
			w.WriteByte(s[i])
			inWord = true
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated ' quote")
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				w.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New(`unterminated " quote`)
			}
			inWord = true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// sumFile returns the size and SHA-256 of a file.
func sumFile(name string) (sumEntry, error) {
	f, err := os.Open(name)
	if err != nil {
		return sumEntry{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return sumEntry{}, err
	}
	return sumEntry{Size: n, Hash: "sha256:" + hex.EncodeToString(h.Sum(nil))}, nil
}

// readSums reads fixtures.sum; a missing file has no entries.
func readSums(name string) (map[string]sumEntry, error) {
	sums := map[string]sumEntry{}
	data, err := os.ReadFile(name)
	if errors.Is(err, os.ErrNotExist) {
		return sums, nil
	}
	if err != nil {
		return nil, err
	}
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		var s sumEntry
		var perr error
		if len(f) == 3 {
			s.Size, perr = strconv.ParseInt(f[1], 10, 64)
			s.Hash = f[2]
		}
		hexPart, ok := strings.CutPrefix(s.Hash, "sha256:")
		if len(f) != 3 || perr != nil || s.Size < 0 || !ok || len(hexPart) != 64 || strings.ToLower(hexPart) != hexPart {
			return nil, fmt.Errorf("%s:%d: want NAME SIZE sha256:HEX", sumName, i+1)
		}
		if _, err := hex.DecodeString(hexPart); err != nil {
			return nil, fmt.Errorf("%s:%d: want NAME SIZE sha256:HEX", sumName, i+1)
		}
		if _, dup := sums[f[0]]; dup {
			return nil, fmt.Errorf("%s:%d: %s listed twice", sumName, i+1, f[0])
		}
		sums[f[0]] = s
	}
	return sums, nil
}

// writeSums replaces fixtures.sum with sums, sorted by name.
func writeSums(name string, sums map[string]sumEntry) error {
	var b bytes.Buffer
	for _, n := range sortedKeys(sums) {
		fmt.Fprintf(&b, "%s %s\n", n, sums[n])
	}
	return writeFileAtomic(name, b.Bytes())
}

// writeFileAtomic replaces name with data through a temporary file.
func writeFileAtomic(name string, data []byte) error {
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, name); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// buildState is what the last build saw, kept in .fixturegen-state: per
// output, a key over its command line and inputs, and the output's size,
// modification time and sum when it was written.
type buildState struct {
	mu        sync.Mutex
	entries   map[string]stateEntry
	generator string // identifies the fixturegen program
	dirty     bool

	// stats counts the system calls the up-to-date checks make (lstat,
	// and open, getdents, fstatat and close per directory), for the
	// no-op build benchmark.
	stats atomic.Int64
}

// lastCheckCalls is the number of system calls the up-to-date checks of
// the last build made (see buildState.stats), for the benchmark.
var lastCheckCalls atomic.Int64

type stateEntry struct {
	key     string
	size    int64
	mtimeNs int64
	sum     sumEntry
}

const stateHeader = "# fixturegen build state v1: NAME KEY SIZE MTIME_NS SHA256. Do not commit; safe to delete.\n"

// readState reads the state file; a missing or unreadable one is empty,
// which only means that everything is rebuilt.
func readState(name string) *buildState {
	st := &buildState{entries: map[string]stateEntry{}}
	data, err := os.ReadFile(name)
	if err != nil {
		return st
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) != 6 || strings.HasPrefix(line, "#") {
			continue
		}
		size, err1 := strconv.ParseInt(f[2], 10, 64)
		mt, err2 := strconv.ParseInt(f[3], 10, 64)
		ss, err3 := strconv.ParseInt(f[4], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		st.entries[f[0]] = stateEntry{key: f[1], size: size, mtimeNs: mt, sum: sumEntry{ss, f[5]}}
	}
	return st
}

func (st *buildState) write(name string) error {
	var b bytes.Buffer
	b.WriteString(stateHeader)
	for _, n := range sortedKeys(st.entries) {
		s := st.entries[n]
		fmt.Fprintf(&b, "%s %s %d %d %d %s\n", n, s.key, s.size, s.mtimeNs, s.sum.Size, s.sum.Hash)
	}
	return writeFileAtomic(name, b.Bytes())
}

// upToDate reports whether the output name was last built with key and is
// still as it was written; it returns its recorded sum.
func (st *buildState) upToDate(name, key, outPath string) (sumEntry, bool) {
	st.mu.Lock()
	s, ok := st.entries[name]
	st.mu.Unlock()
	if !ok || s.key != key {
		return sumEntry{}, false
	}
	st.stats.Add(1)
	fi, err := os.Lstat(outPath)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != s.size || fi.ModTime().UnixNano() != s.mtimeNs || s.sum.Size != s.size {
		return sumEntry{}, false
	}
	return s.sum, true
}

// record notes that name was built with key.
func (st *buildState) record(name, key, outPath string, sum sumEntry) {
	fi, err := os.Lstat(outPath)
	st.mu.Lock()
	defer st.mu.Unlock()
	st.dirty = true
	if err != nil {
		delete(st.entries, name)
		return
	}
	st.entries[name] = stateEntry{key: key, size: fi.Size(), mtimeNs: fi.ModTime().UnixNano(), sum: sum}
}

// key hashes what an entry's output depends on: the program, the command
// line, and every input's path, type, mode, size and modification time (or,
// with contents, its SHA-256 instead of the time). Inputs are the arguments
// that name existing files or directories other than the output itself;
// directories are walked, entries in name order. An input that is the
// output of another entry counts by the sum that output (looked up with
// output) has.
func (st *buildState) key(dir string, m manifestEntry, contents bool, output func(string) (sumEntry, bool)) (string, error) {
	h := sha256.New()
	buf := make([]byte, 0, 512)
	fmt.Fprintf(h, "fixturegen build key v1\x00%s\x00%t\x00", st.generator, contents)
	for _, a := range m.Args {
		h.Write([]byte(a))
		h.Write([]byte{0})
	}
	for _, a := range m.Args[1:] {
		if a == "" || a == m.Name || path.Clean(filepath.ToSlash(a)) == m.Name {
			continue
		}
		if s, ok := output(path.Clean(filepath.ToSlash(a))); ok {
			fmt.Fprintf(h, "output %s\x00%s\x00", a, s)
			continue
		}
		p := a
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if strings.HasPrefix(a, "-") {
			continue // an option, not a file
		}
		st.stats.Add(1)
		fi, err := os.Lstat(p)
		if err != nil {
			continue // not a file: an option value
		}
		fmt.Fprintf(h, "arg %s\x00", a)
		if err := st.hashInput(h, &buf, p, ".", fi, contents); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashInput adds one input (and, for a directory, everything under it)
// to h. buf is scratch space, reused from call to call so that the
// thousands of entries of a big input tree cost no allocation each.
func (st *buildState) hashInput(h io.Writer, buf *[]byte, p, rel string, fi fs.FileInfo, contents bool) error {
	b := append((*buf)[:0], rel...)
	b = append(b, 0)
	b = strconv.AppendUint(b, uint64(uint32(fi.Mode())), 8)
	b = append(b, 0)
	b = strconv.AppendInt(b, fi.Size(), 10)
	b = append(b, 0)
	switch {
	case fi.Mode().IsRegular() && contents:
		h.Write(b)
		b = b[:0]
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return err
		}
	case fi.Mode()&fs.ModeSymlink != 0:
		t, _ := os.Readlink(p)
		b = append(b, t...)
		b = append(b, 0)
	}
	if !contents {
		b = strconv.AppendInt(b, fi.ModTime().UnixNano(), 10)
		b = append(b, 0)
	}
	h.Write(b)
	*buf = b
	if !fi.IsDir() {
		return nil
	}
	ents, calls, err := readDirInfo(p)
	st.stats.Add(int64(calls))
	if err != nil {
		return err
	}
	for _, cfi := range ents {
		// Names from a directory hold no slash and are neither "." nor
		// "..": joining them needs no cleaning.
		name := cfi.Name()
		crel := name
		if rel != "." {
			crel = rel + "/" + name
		}
		if err := st.hashInput(h, buf, p+string(filepath.Separator)+name, crel, cfi, contents); err != nil {
			return err
		}
	}
	return nil
}

// generatorID identifies the running program by its executable's size and
// modification time, so that a new fixturegen rebuilds everything.
func generatorID() string {
	exe, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return "unknown"
	}
	return fmt.Sprintf("%d.%d", fi.Size(), fi.ModTime().UnixNano())
}
