package catalog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/fixturegen/fixturegen/imgkit/progress"
	"github.com/fixturegen/fixturegen/internal/tempfile"
)

// Options are the settings of Build and Verify.
type Options struct {
	// Runner runs the commands and plans their inputs; it is required.
	Runner Runner
	// Reporter is told of progress and of each output as it completes;
	// nil reports nothing.
	Reporter Reporter
	// Names selects entries by output name; empty means every entry.
	Names []string
	// Jobs is how many entries run at once; 0 means runtime.GOMAXPROCS.
	// The outputs do not depend on it.
	Jobs int
	// Update records the outputs' sums in fixtures.sum instead of
	// checking them (Build only).
	Update bool
	// Hash reads every input and decides by its contents whether it
	// changed, so that new times alone (a checkout, touch) rebuild
	// nothing; times still count where the output stores them
	// (Plan.Times, Input.ModTime). Every build records each input's stat
	// fingerprint (type, mode, size, owner, links, times, device and
	// inode, link target), and a build with Hash its contents too, which
	// later builds without Hash keep while the stat fingerprint holds.
	// So toggling Hash rebuilds nothing: without Hash an input counts by
	// its stat fingerprint, and with Hash an input whose contents the
	// state lacks (it was last built without Hash) counts as unchanged
	// when its stat fingerprint is, and its contents are recorded for the
	// next build. That first
	// build with Hash is therefore only as sure as one without it: a file
	// rewritten with its size and modification time set back goes
	// unnoticed where the host has no change time (not Linux). Build
	// only.
	Hash bool
	// Force rebuilds every selected entry (Build only; Verify always
	// does).
	Force bool
	// Getenv is the commands' environment; SOURCE_DATE_EPOCH is always
	// empty for them. Nil means an empty environment.
	Getenv func(string) string
	// UpdateCommand is how the user records new sums, for hints in
	// messages: "go tool fixturegen build -update", "mage fixturesUpdate".
	// Empty means "fixturegen build -update".
	UpdateCommand string
}

// Status is what happened to one entry.
type Status int

const (
	Built    Status = iota // the output was built (and installed)
	UpToDate               // nothing to do
	Failed                 // the command failed or the output did not match
)

// EntryResult is what happened to one entry.
type EntryResult struct {
	Entry  Entry
	Status Status
	Sum    Sum    // the output's sum, when there is an output
	Stdout string // the command's standard output
	// Errors are the entry's error and warning lines, each starting
	// "manifest:LINE: NAME: ".
	Errors []string
	// Explain, for a sum mismatch, says what changed since the last
	// build and how the new output differs from the one kept, one
	// tab-indented line each.
	Explain string
	// installed is set when the output is in place (built or up to date).
	installed bool
}

// Result is what a Build or Verify did.
type Result struct {
	Op                      string // "build" or "verify"
	Entries                 []*EntryResult
	Built, UpToDate, Failed int
	// SumsChanged counts the sums that an update changed, added or
	// removed; SumsCreated is set when fixtures.sum did not exist and
	// the build created it.
	SumsChanged int
	SumsCreated bool
	Updated     bool // fixtures.sum was written
	// Extra lists the names fixtures.sum has and the manifest does not
	// (a full build without Update).
	Extra []string
	// CheckCalls counts the system calls of the up-to-date checks.
	CheckCalls int64

	updateCommand string
	updating      bool // the run was to record sums
}

// Summary is the result's last line: "build: 2 built, 1 up to date, 0 failed".
func (r *Result) Summary() string {
	s := fmt.Sprintf("%s: %d built, %d up to date, %d failed", r.Op, r.Built, r.UpToDate, r.Failed)
	switch {
	case r.SumsCreated:
		s += fmt.Sprintf("; created %s with %d sums (commit it; after a deliberate change, run %s to record new sums)", SumName, r.SumsChanged, r.updateCommand)
	case r.Updated:
		s += fmt.Sprintf("; %d sums changed in %s", r.SumsChanged, SumName)
	}
	return s
}

// Error is returned by Build and Verify when an entry failed or fixtures.sum
// lists outputs the manifest does not.
type Error struct{ Result *Result }

func (e *Error) Error() string {
	s := e.Result.Summary()
	if e.Result.updating {
		return s // recording sums failed: the errors above say why
	}
	return s + " (after a deliberate change, run " + e.Result.updateCommand + " to record new sums)"
}

// Build brings the selected outputs up to date in the catalogue folder and
// checks each against fixtures.sum, or records the sums with
// Options.Update. When fixtures.sum does not exist, Build creates it, as
// Update would. An output's folder that does not exist is made, and
// removed at the end of the run if nothing was put in it. An output whose sum does not match is not installed: the
// old one stays, and EntryResult.Explain says what changed. It holds the
// catalogue's lock while it runs (another Build or Clean waits); when ctx is done it removes every
// temporary file of the run and returns ctx's error.
func (c *Catalog) Build(ctx context.Context, o *Options) (*Result, error) {
	return c.run(ctx, o, "build")
}

// Verify copies the catalogue folder's inputs (everything but the outputs,
// the build state and temporary files) to a temporary directory, rebuilds
// every selected entry there and compares each output with fixtures.sum,
// explaining a mismatch against the output in the catalogue folder. An
// output present in the catalogue folder must match fixtures.sum too (one
// edited, or built from other inputs, fails its entry); an absent one is
// fine. It never writes to the catalogue folder, and refuses an entry
// that reads anything outside it but the host's own files (Input.Host).
// The temporary directory is removed when it returns, also when ctx is
// done.
func (c *Catalog) Verify(ctx context.Context, o *Options) (*Result, error) {
	return c.run(ctx, o, "verify")
}

// engine is one run of Build or Verify.
type engine struct {
	cat  *Catalog
	o    Options
	op   string
	dir  string // where the entries run: the catalogue folder or verify's copy
	sums map[string]Sum
	// creating is set when fixtures.sum does not exist: every output is
	// installed and the sums recorded.
	creating bool
	update   bool

	st    *state
	keys  *keyer
	temps *temps
	repMu sync.Mutex
	// produced holds the sums of the outputs made, or found up to date,
	// in this run, by name.
	produced sync.Map
	// unselected holds the outputs of the manifest that the run does not
	// build, by name.
	unselected map[string]bool
	// folders are the output folders the run made.
	folders madeFolders
	// lstats holds the lstat of every planned input by absolute path,
	// taken once by statInputs before any entry runs; read only after.
	lstats map[string]lstatResult
}

func (c *Catalog) run(ctx context.Context, o *Options, op string) (*Result, error) {
	if o == nil || o.Runner == nil {
		return nil, errors.New("catalog: Options.Runner is nil")
	}
	e := newEngine(c, o, op)
	sel, err := c.Select(e.o.Names)
	if err != nil {
		return nil, err
	}
	e.unselected = unselected(c.Entries, sel)
	// A cancelled run removes its temporary files at once, even while
	// commands that cannot stop early are still writing.
	stop := context.AfterFunc(ctx, e.temps.removeAll)
	defer stop()

	// A build holds the catalogue's lock. Verify takes none: it writes
	// nothing there, and its copy leaves out every file a build writes
	// (outputs, temporary files, the state), reading fixtures.sum, which
	// a build replaces whole, once.
	if op == "build" {
		unlock, err := lock(ctx, c.Dir, func() { e.message(fmt.Sprintf("%s: waiting for another run on this catalogue to finish", op)) })
		if err != nil {
			return nil, err
		}
		defer unlock()
	}
	defer e.folders.removeEmpty() // after the temporary files, before the lock goes
	defer e.temps.removeAll()     // before the lock goes
	if op == "build" {
		if note := removeLeftovers(c.Dir, c.Entries); note != "" {
			e.message(op + ": " + note)
		}
	}
	sums, exists, err := ReadSums(filepath.Join(c.Dir, SumName))
	if err != nil {
		return nil, err
	}
	e.sums = sums
	e.creating = !exists && op == "build"
	e.update = e.o.Update || e.creating
	if e.o.Reporter != nil {
		e.o.Reporter.Start(e.op, len(sel))
	}
	if op == "verify" {
		if err := e.verifyCopy(ctx, sel); err != nil {
			return nil, err
		}
	} else {
		e.st = readState(filepath.Join(c.Dir, StateName))
	}
	e.keys = e.newKeyer()
	res, err := e.build(ctx, sel)
	if err != nil {
		return res, err
	}
	res.CheckCalls = e.st.calls.Load()
	return e.finish(res, sel)
}

// unselected returns the names of the entries that are not in sel.
func unselected(all, sel []Entry) map[string]bool {
	u := map[string]bool{}
	for _, m := range all {
		u[m.Name] = true
	}
	for _, m := range sel {
		delete(u, m.Name)
	}
	return u
}

// newEngine returns the engine of a run op ("build" or "verify") of c with
// the defaults of o filled in; verify never updates, always rebuilds and
// compares contents.
func newEngine(c *Catalog, o *Options, op string) *engine {
	e := &engine{cat: c, o: *o, op: op, dir: c.Dir, temps: &temps{}}
	if e.o.Jobs <= 0 {
		e.o.Jobs = runtime.GOMAXPROCS(0)
	}
	if e.o.UpdateCommand == "" {
		e.o.UpdateCommand = "fixturegen build -update"
	}
	if op == "verify" {
		e.o.Update, e.o.Force, e.o.Hash = false, true, false
	}
	return e
}

// build runs the selected entries, each after those whose outputs it reads.
func (e *engine) build(ctx context.Context, sel []Entry) (*Result, error) {
	res := &Result{Op: e.op, updateCommand: e.o.UpdateCommand}
	plans, planErrs := e.makePlans(sel)
	deps, err := dependencies(sel, plans)
	if err != nil {
		return nil, &ManifestError{Problems: []string{err.Error()}}
	}
	e.checkTrees(sel, plans, planErrs)
	if err := shapeProblems(sel, planErrs); err != nil {
		return nil, err
	}
	order := topoOrder(len(sel), deps)
	b := &buildRun{e: e, sel: sel, plans: plans, planErrs: planErrs, deps: deps,
		results: make([]*EntryResult, len(sel)), done: make([]chan struct{}, len(sel))}
	for i := range b.done {
		b.done[i] = make(chan struct{})
	}
	b.runAll(ctx, order)
	if ctx.Err() != nil {
		// Running commands may not stop at once; their temporary files
		// are removed now and again when each returns.
		e.temps.removeAll()
		return nil, ctx.Err()
	}
	countResults(res, b.results)
	return res, nil
}

// makePlans makes the plan of each selected entry, or the error that
// stops it, with Options.Jobs goroutines: plans cost a few stats each.
func (e *engine) makePlans(sel []Entry) ([]*Plan, []error) {
	plans := make([]*Plan, len(sel))
	planErrs := make([]error, len(sel))
	var pwg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < min(e.o.Jobs, len(sel)); w++ {
		pwg.Add(1)
		go func() {
			defer pwg.Done()
			for i := range next {
				plans[i], planErrs[i] = e.plan(sel[i])
			}
		}()
	}
	for i := range sel {
		next <- i
	}
	close(next)
	pwg.Wait()
	return plans, planErrs
}

// buildRun is one run of engine.build over the selected entries: their
// plans and dependencies, and each entry's result, with a channel that is
// closed once the result is in.
type buildRun struct {
	e        *engine
	sel      []Entry
	plans    []*Plan
	planErrs []error
	deps     [][]int
	results  []*EntryResult
	done     []chan struct{}
}

// runAll runs the entries with Options.Jobs workers, handing them out in
// order, until every entry has run or ctx is cancelled.
func (b *buildRun) runAll(ctx context.Context, order []int) {
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(b.e.o.Jobs, len(b.sel)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				b.runEntry(ctx, i)
			}
		}()
	}
	finished := make(chan struct{})
	go func() {
		defer func() {
			close(work)
			wg.Wait()
			close(finished)
		}()
		for _, i := range order {
			select {
			case work <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	select {
	case <-finished:
	case <-ctx.Done():
	}
}

// runEntry waits for the entries that entry i depends on, builds it unless
// the run was interrupted, its plan failed or one of its inputs failed,
// reports its result and marks it done.
func (b *buildRun) runEntry(ctx context.Context, i int) {
	e := b.e
	m := b.sel[i]
	r := &EntryResult{Entry: m}
	failedDep := ""
	for _, d := range b.deps[i] {
		<-b.done[d]
		if !b.results[d].installed && failedDep == "" {
			failedDep = b.sel[d].Name
		}
	}
	switch {
	case ctx.Err() != nil:
		r.Status = Failed
		r.Errors = append(r.Errors, e.where(m)+"not built: interrupted")
	case b.planErrs[i] != nil:
		r.Status = Failed
		r.Errors = append(r.Errors, e.where(m)+oneLine(b.planErrs[i].Error()))
	case failedDep != "":
		r.Status = Failed
		r.Errors = append(r.Errors, e.where(m)+"not built: its input "+failedDep+" failed")
	default:
		e.buildEntry(ctx, m, b.plans[i], r)
	}
	b.results[i] = r
	if ctx.Err() == nil {
		e.repMu.Lock()
		if e.o.Reporter != nil {
			e.o.Reporter.EntryDone(r)
		}
		e.repMu.Unlock()
	}
	close(b.done[i])
}

// countResults adds the entries' results to res and counts them by
// status.
func countResults(res *Result, results []*EntryResult) {
	for _, r := range results {
		res.Entries = append(res.Entries, r)
		switch r.Status {
		case Built:
			res.Built++
		case UpToDate:
			res.UpToDate++
		case Failed:
			res.Failed++
		}
	}
}

// finish writes the state and, for an update, fixtures.sum, and returns
// the error that a failed run is.
func (e *engine) finish(res *Result, sel []Entry) (*Result, error) {
	if e.op == "build" && e.st.dirty {
		if err := e.st.write(filepath.Join(e.cat.Dir, StateName), e.temps); err != nil {
			e.message(fmt.Sprintf("%s: %v", e.op, err))
		}
	}
	if e.update && res.Failed == 0 {
		return res, e.recordSums(res)
	}
	if e.update {
		res.updating = true
		return res, &Error{res}
	}
	if len(e.o.Names) == 0 {
		for _, n := range sortedKeys(e.sums) {
			if !slices.ContainsFunc(sel, func(m Entry) bool { return m.Name == n }) {
				res.Extra = append(res.Extra, n)
			}
		}
	}
	if res.Failed > 0 || len(res.Extra) > 0 {
		return res, &Error{res}
	}
	return res, nil
}

// recordSums writes the sums of the run's outputs to fixtures.sum, for an
// update (or the build that creates it): a full build records exactly the
// manifest's outputs, a build of some names replaces only theirs. It sets
// res's Updated, SumsChanged and SumsCreated.
func (e *engine) recordSums(res *Result) error {
	have := map[string]Sum{}
	for _, r := range res.Entries {
		have[r.Entry.Name] = r.Sum
	}
	changed := 0
	for n, s := range have {
		if old, ok := e.sums[n]; !ok || old != s {
			changed++
		}
	}
	if len(e.o.Names) == 0 {
		// A full build records exactly the manifest's outputs.
		for n := range e.sums {
			if _, ok := have[n]; !ok {
				changed++
			}
		}
		clear(e.sums)
	}
	for n, s := range have {
		e.sums[n] = s
	}
	data, err := formatSums(e.sums)
	if err == nil {
		err = writeFileAtomic(filepath.Join(e.cat.Dir, SumName), data, e.temps)
	}
	if err != nil {
		return err
	}
	res.Updated, res.SumsChanged, res.SumsCreated = true, changed, e.creating && !e.o.Update
	return nil
}

// where starts an entry's messages: "manifest:LINE: NAME: ".
func (e *engine) where(m Entry) string {
	return fmt.Sprintf("%s:%d: %s: ", ManifestName, m.Line, m.Name)
}

// message passes a note to the reporter.
func (e *engine) message(s string) {
	if e.o.Reporter == nil {
		return
	}
	e.repMu.Lock()
	defer e.repMu.Unlock()
	e.o.Reporter.Message(s)
}

// buildEntry brings one entry up to date and checks its sum.
func (e *engine) buildEntry(ctx context.Context, m Entry, p *Plan, r *EntryResult) {
	where := e.where(m)
	fail := func(format string, args ...any) {
		r.Status = Failed
		r.Errors = append(r.Errors, where+fmt.Sprintf(format, args...))
	}
	outPath := filepath.Join(e.dir, filepath.FromSlash(m.Name))

	k, err := e.keys.key(m, p)
	if err != nil {
		fail("%v", err)
		return
	}
	if s, ok := e.upToDate(m, k, outPath); ok {
		e.st.refresh(m.Name, k)
		r.Status, r.Sum, r.installed = UpToDate, s, true
		e.produced.Store(m.Name, s)
		return
	}
	if e.checksState() && e.st.outputChanged(m.Name, outPath) {
		r.Errors = append(r.Errors, where+"the output is not the file the last build wrote (edited, touched or replaced since); building it again")
	}

	// Build into a temporary name beside the output, so that a failed
	// command or check leaves the old output alone and the old one can
	// explain a mismatch; in a folder that does not exist yet, the run
	// makes it (and removes it at its end if nothing was put in it).
	if err := e.folders.make(e.dir, m.Name); err != nil {
		fail("%v", err)
		return
	}
	tmpPath := tempfile.Name(outPath)
	cleanup := e.trackTemp(tmpPath)
	defer cleanup()
	meter := new(progress.Meter)
	e.started(m, meter)
	if !e.runCommand(ctx, m, p, tmpPath, meter, r, fail) {
		return
	}
	s, err := sumFile(tmpPath, meter, "hashing "+m.Name)
	if err != nil {
		fail("%v", err)
		return
	}
	r.Sum = s
	if !e.update && !e.checkSum(m, k, s, tmpPath, r, fail) {
		return
	}
	if err := os.Rename(tmpPath, outPath); err != nil {
		fail("%v", err)
		return
	}
	r.installed = true
	e.produced.Store(m.Name, s)
	r.Status = Built
	if e.op == "build" {
		e.st.record(m.Name, k, outPath, s)
	} else {
		e.checkInstalled(m, meter, fail)
	}
}

// runCommand runs the entry m's command with its output argument set to
// tmpPath, without SOURCE_DATE_EPOCH, telling how far it is in meter, and records its standard output and
// its error lines in r with the temporary name replaced by the entry's.
// It reports whether the command succeeded and the run was not
// interrupted; otherwise it has called fail.
func (e *engine) runCommand(ctx context.Context, m Entry, p *Plan, tmpPath string, meter *progress.Meter, r *EntryResult, fail func(string, ...any)) bool {
	where := e.where(m)
	tmpArg, _ := filepath.Rel(e.dir, tmpPath)
	tmpArg = filepath.ToSlash(tmpArg)
	args := slices.Clone(m.Args)
	args[p.Output] = tmpArg
	var stdout, stderr bytes.Buffer
	err := e.o.Runner.Run(ctx, &Command{
		Dir: e.dir, Args: args, Stdout: &stdout, Stderr: &stderr, Progress: meter,
		Getenv: func(key string) string {
			if key == "SOURCE_DATE_EPOCH" || e.o.Getenv == nil {
				return ""
			}
			return e.o.Getenv(key)
		},
	})
	r.Stdout = strings.ReplaceAll(stdout.String(), tmpArg, m.Name)
	for _, l := range strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n") {
		if l != "" {
			r.Errors = append(r.Errors, where+strings.ReplaceAll(strings.TrimPrefix(l, "fixturegen: "), tmpArg, m.Name))
		}
	}
	if err != nil {
		fail("%s", oneLine(strings.ReplaceAll(err.Error(), tmpArg, m.Name)))
		return false
	}
	if ctx.Err() != nil {
		fail("not built: interrupted")
		return false
	}
	return true
}

// checkSum compares the sum s of the output built at tmpPath with the one
// fixtures.sum records for m. It reports whether they match; otherwise it
// has called fail and, for a mismatch, set r.Explain to the inputs that
// changed and how the outputs differ.
func (e *engine) checkSum(m Entry, k *entryKey, s Sum, tmpPath string, r *EntryResult, fail func(string, ...any)) bool {
	want, hasSum := e.sums[m.Name]
	compare := filepath.Join(e.cat.Dir, filepath.FromSlash(m.Name))
	switch {
	case !hasSum:
		fail("not in %s; run %s %s to record it", SumName, e.o.UpdateCommand, m.Name)
		return false
	case s != want:
		fail("sum mismatch (have %s, want %s); the output there is kept", s, want)
		var x strings.Builder
		if c := e.st.get(m.Name).changes(k, e.o.Hash); len(c) > 0 {
			fmt.Fprintf(&x, "\tchanged since %s was last built: %s\n", m.Name, strings.Join(c, ", "))
		}
		x.WriteString(explainMismatch(compare, tmpPath, m.Name))
		r.Explain = x.String()
		return false
	}
	return true
}

// oneLine keeps an error message on one line.
func oneLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return strings.ReplaceAll(s, "\n", "; ")
}

// plan asks the runner for m's plan, checks that it names m's output, and
// makes the inputs inside the folder the entries run in relative to it,
// slash-separated and clean.
func (e *engine) plan(m Entry) (*Plan, error) {
	p, err := e.o.Runner.Plan(e.dir, m.Args)
	if err != nil {
		return nil, err
	}
	if p.Output < 1 || p.Output >= len(m.Args) || path.Clean(filepath.ToSlash(m.Args[p.Output])) != m.Name {
		return nil, &shapeError{fmt.Errorf("the command line does not write its output %s", m.Name)}
	}
	if err := outputFolderLink(e.dir, m.Name); err != nil {
		return nil, &shapeError{err}
	}
	q := *p
	q.Inputs = make([]Input, 0, len(p.Inputs))
	for _, in := range p.Inputs {
		abs := in.Path
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(e.dir, abs)
		}
		in.Path = display(e.dir, abs)
		if in.Path == m.Name {
			continue // a command that rewrites its output reads it, but build starts it afresh
		}
		q.Inputs = append(q.Inputs, in)
	}
	return &q, nil
}

// ErrOutputLink is wrapped by the error of an entry whose output folder,
// or a folder above it inside the catalogue, is a symbolic link.
var ErrOutputLink = errors.New("output folder is a symbolic link")

// outputFolderLink returns an error wrapping ErrOutputLink when a folder
// on the path of the output name in the catalogue folder dir ("out" and
// "out/sub" of "out/sub/a.img"), looked at component by component, is a
// symbolic link, and nil otherwise (also when a folder does not exist yet,
// or is not a folder: then the command fails). Build writes the output,
// its temporary files and the command's beside it, and clean removes
// them, only through real folders: a link that leaves the catalogue would
// write or delete outside it, and one that stays inside would give one
// file two names, which the dependency order, the fingerprints of inputs
// and verify's copy do not see as one.
func outputFolderLink(dir, name string) error {
	p := dir
	parts := strings.Split(path.Dir(name), "/")
	for i, c := range parts {
		if c == "." {
			break
		}
		p = filepath.Join(p, c)
		fi, err := os.Lstat(p)
		if err != nil || !fi.IsDir() && fi.Mode()&fs.ModeSymlink == 0 {
			return nil
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			return fmt.Errorf("%w: %s -> %s; outputs are written only through real folders of the catalogue (make %s a folder, or name the output where the link leads)",
				ErrOutputLink, strings.Join(parts[:i+1], "/"), target, strings.Join(parts[:i+1], "/"))
		}
	}
	return nil
}

// display returns the absolute path p relative to dir, slash-separated,
// when it can be said so ("inputs/small", "../spec.mtree"), else p.
func display(dir, p string) string {
	if r, err := filepath.Rel(dir, p); err == nil && !filepath.IsAbs(r) {
		return filepath.ToSlash(r)
	}
	return p
}
