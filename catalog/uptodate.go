package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// checksState reports whether the run may find an output up to date:
// only a build without Options.Force does; verify rebuilds everything.
func (e *engine) checksState() bool {
	return !e.o.Force && e.op == "build"
}

// upToDate reports whether the output of m at outPath needs no rebuild,
// and returns its sum: the run checks the state (checksState), the state
// finds the output up to date with k (state.upToDate), and its sum is the
// one fixtures.sum records, or the run records sums (an update, or the
// build that creates fixtures.sum).
func (e *engine) upToDate(m Entry, k *entryKey, outPath string) (Sum, bool) {
	if !e.checksState() {
		return Sum{}, false
	}
	s, ok := e.st.upToDate(m.Name, k, e.o.Hash, outPath)
	if !ok {
		return Sum{}, false
	}
	if want, hasSum := e.sums[m.Name]; !e.update && (!hasSum || s != want) {
		return Sum{}, false
	}
	return s, true
}

// upToDate reports whether the output name was last built with k's key
// from inputs that are unchanged (see inputPrint.unchanged; hash is
// Options.Hash) and is still as it was written (outputStat); it returns
// its recorded sum.
func (st *state) upToDate(name string, k *entryKey, hash bool, outPath string) (Sum, bool) {
	s := st.get(name)
	if s == nil || s.Key != k.key || len(s.Inputs) != len(k.inputs) {
		return Sum{}, false
	}
	for p, now := range k.inputs {
		old, ok := s.Inputs[p]
		if !ok || !now.unchanged(old, hash) {
			return Sum{}, false
		}
	}
	st.calls.Add(1)
	o, err := statOutput(outPath)
	if err != nil || o != s.Output || s.Sum.Size != s.Output.Size {
		return Sum{}, false
	}
	return s.Sum, true
}

// outputChanged reports whether the output file at outPath exists but is
// not the file the last build recorded for name: it was edited, touched or
// replaced since.
func (st *state) outputChanged(name, outPath string) bool {
	s := st.get(name)
	if s == nil {
		return false
	}
	o, err := statOutput(outPath)
	if os.IsNotExist(err) {
		return false
	}
	return err != nil || o != s.Output
}

// refresh replaces the input fingerprints of the up-to-date output name
// with k's when they differ: with Options.Hash, the content fingerprints
// that a build without it did not record, and the stat fingerprints of
// inputs whose times alone changed, so that the next build, with or
// without Options.Hash, finds them unchanged.
func (st *state) refresh(name string, k *entryKey) {
	st.mu.Lock()
	defer st.mu.Unlock()
	s := st.entries[name]
	if s == nil || s.mergeKeeps(k) {
		return
	}
	in := s.merge(k)
	c := *s
	c.Inputs = in
	st.entries[name] = &c
	st.dirty = true
}

// merge returns k's input fingerprints, keeping the content fingerprints
// that s recorded for inputs k did not hash (a build without Options.Hash)
// whose stat fingerprint is unchanged, so that such a build does not make
// the next one with Options.Hash fall back to the stat fingerprints.
func (s *stateEntry) merge(k *entryKey) map[string]inputPrint {
	if s == nil || s.Key != k.key {
		return k.inputs
	}
	in := make(map[string]inputPrint, len(k.inputs))
	for p, now := range k.inputs {
		if old, ok := s.Inputs[p]; ok && now.Content == "" && now.Stat == old.Stat {
			now.Content = old.Content
		}
		in[p] = now
	}
	return in
}

// mergeKeeps reports whether merge(k) would return s's own input
// fingerprints, as it does for an entry found up to date whose inputs
// changed in no field (the usual no-op build), without making the map.
func (s *stateEntry) mergeKeeps(k *entryKey) bool {
	if s.Key != k.key {
		return maps.Equal(s.Inputs, k.inputs)
	}
	if len(s.Inputs) != len(k.inputs) {
		return false
	}
	for p, now := range k.inputs {
		old, ok := s.Inputs[p]
		if ok && now.Content == "" && now.Stat == old.Stat {
			now.Content = old.Content
		}
		if !ok || now != old {
			return false
		}
	}
	return true
}

// record notes that name was built as k says.
func (st *state) record(name string, k *entryKey, outPath string, sum Sum) {
	o, err := statOutput(outPath)
	st.mu.Lock()
	defer st.mu.Unlock()
	st.dirty = true
	if err != nil {
		delete(st.entries, name)
		return
	}
	st.entries[name] = &stateEntry{
		Key: k.key, Generator: k.generator, Args: k.args, Inputs: st.entries[name].merge(k),
		Output: o, Sum: sum,
	}
}

// changes says what differs between the record of the last build and k:
// the generator, the command line, inputs by path (compared as
// inputPrint.unchanged does with hash).
func (s *stateEntry) changes(k *entryKey, hash bool) []string {
	if s == nil {
		return nil
	}
	var c []string
	if s.Generator != k.generator {
		c = append(c, "the generator (another fixturegen build)")
	}
	if strings.Join(s.Args, "\x00") != strings.Join(k.args, "\x00") {
		c = append(c, "the command line")
	}
	for _, p := range k.order {
		old, had := s.Inputs[p]
		switch {
		case !had:
			c = append(c, "input "+p+" (new)")
		case !k.inputs[p].unchanged(old, hash):
			c = append(c, "input "+p)
		}
	}
	for _, p := range sortedKeys(s.Inputs) {
		if _, ok := k.inputs[p]; !ok {
			c = append(c, "input "+p+" (no longer read)")
		}
	}
	return c
}

// entryKey is what an entry's output depends on: key hashes the
// generator and the command line, inputs holds each input's
// fingerprints.
type entryKey struct {
	key       string
	generator string
	args      []string
	inputs    map[string]inputPrint // by input path
	order     []string              // input paths in command-line order
}

// keyer computes entry keys for one run.
type keyer struct {
	st        *state
	generator string
	dir       string // where the commands run
	hash      bool   // Options.Hash
	// output returns the sum of the output name produced in this run, or
	// found up to date; an input that is another entry's output counts by
	// its sum, not its modification time, which a rebuild changes.
	output func(name string) (Sum, bool)
	// lstat returns an input's lstat information (engine.lstat: the one
	// the run took of every input before any entry ran), counting the
	// calls it makes.
	lstat func(p string) (fs.FileInfo, error)
	// outputDirs holds the catalogue paths of the folders that hold an
	// output of the manifest ("." for the catalogue folder's own): only
	// in them can a file under an input folder be an output.
	outputDirs map[string]bool
}

// newKeyer returns the keyer of the run, which counts an input that is
// another entry's output by the sum this run made or found for it.
func (e *engine) newKeyer() *keyer {
	dirs := map[string]bool{}
	for _, m := range e.cat.Entries {
		dirs[path.Dir(m.Name)] = true
	}
	return &keyer{st: e.st, generator: Generator(), dir: e.dir, hash: e.o.Hash, output: e.producedSum, lstat: e.lstat, outputDirs: dirs}
}

// producedSum returns the sum of the output name made, or found up to
// date, in this run. For an output of the manifest that the run does not
// build (its entry is not selected) it returns the sum that output's last
// build recorded, while the file is still the one that build wrote, so
// that an entry reading it has the same key whether the run builds some
// entries or all of them.
func (e *engine) producedSum(name string) (Sum, bool) {
	if v, ok := e.produced.Load(name); ok {
		return v.(Sum), true
	}
	if !e.unselected[name] {
		return Sum{}, false
	}
	return e.st.writtenSum(name, filepath.Join(e.dir, filepath.FromSlash(name)))
}

// writtenSum returns the sum recorded for the output name when the file at
// outPath is still the one its last build wrote (outputStat).
func (st *state) writtenSum(name, outPath string) (Sum, bool) {
	s := st.get(name)
	if s == nil {
		return Sum{}, false
	}
	st.calls.Add(1)
	o, err := statOutput(outPath)
	if err != nil || o != s.Output {
		return Sum{}, false
	}
	return s.Sum, true
}

// keyVersion starts what an entry's key hashes (the generator,
// Plan.Times and the command line; see keyer.key). Bump it whenever what
// the key hashes, or how, changes, so that no key of the old kind can
// match one of the new. A change to the state file's lines or to an input
// fingerprint bumps the state file's version (stateHeader) instead, and a
// new fixturegen or Go version bumps nothing: the generator (Generator)
// changes by itself. The package doc's "Up to date" section lists the
// three.
const keyVersion = "fixturegen build key v3"

// key hashes the generator and the command line, and fingerprints every
// input.
func (k *keyer) key(m Entry, p *Plan) (*entryKey, error) {
	ek := &entryKey{generator: k.generator, args: m.Args, inputs: map[string]inputPrint{}}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%t\x00", keyVersion, k.generator, p.Times)
	for _, a := range m.Args {
		io.WriteString(h, a+"\x00")
	}
	ek.key = hex.EncodeToString(h.Sum(nil))
	for _, in := range p.Inputs {
		if _, dup := ek.inputs[in.Path]; dup {
			continue
		}
		fp, err := k.fingerprint(m, in, p.Times)
		if err != nil {
			return nil, err
		}
		ek.inputs[in.Path] = fp
		ek.order = append(ek.order, in.Path)
	}
	return ek, nil
}

// rel returns the slash-separated path of p relative to dir, and whether it
// lies inside dir.
func rel(dir, p string) (string, bool) {
	if !filepath.IsAbs(p) {
		c := path.Clean(filepath.ToSlash(p))
		return c, c != ".." && !strings.HasPrefix(c, "../")
	}
	r, err := filepath.Rel(dir, p)
	if err != nil {
		return "", false
	}
	r = filepath.ToSlash(r)
	return r, r != ".." && !strings.HasPrefix(r, "../")
}

// fingerprint returns the fingerprints of one input. The stat
// fingerprint hashes what can change what the command reads there: the
// file's type, mode, size, owner, symbolic link target, device number (of
// a device), hard links within the input, modification and change times,
// and the device and inode numbers that tell one file from another (a
// file replaced by a rename, a link retargeted to a file of the same size
// and times), and the same of everything under it for a directory. For an
// input the command follows (Input.Follow) that is a symbolic link, it
// hashes the link's target and then the same of what the link resolves to,
// or that it resolves to nothing. An absent input hashes as absent. With
// Options.Hash the content fingerprint hashes the same without the device
// and inode numbers and the link target of a followed link, which do not
// reach the output, without the times (unless the output stores them,
// times, or the input counts by its time, Input.ModTime), and with every
// regular file's contents. An input, or a file under an input
// directory, that is another entry's output counts by its sum; the
// catalogue's own files (state, lock, temporary files) do not count.
func (k *keyer) fingerprint(m Entry, in Input, times bool) (inputPrint, error) {
	p := in.Path
	if !filepath.IsAbs(p) {
		p = filepath.Join(k.dir, p)
	}
	same := func(fp string) inputPrint {
		if k.hash {
			return inputPrint{Stat: fp, Content: fp}
		}
		return inputPrint{Stat: fp}
	}
	r, inside := rel(k.dir, p)
	if !inside {
		r = ""
	}
	if s, ok := k.outputSum(m, r); ok {
		return same("output " + s.String()), nil
	}
	fi, followed, err := k.statInput(p, in.Follow)
	if err != nil {
		if !os.IsNotExist(err) {
			return inputPrint{}, err
		}
		if followed == "" {
			return same("absent"), nil
		}
		fp := same("absent")
		h := sha256.Sum256([]byte(followed))
		fp.Stat = "absent " + hex.EncodeToString(h[:]) // a link to nothing, by its target
		return fp, nil
	}
	w := &walker{k: k, m: m, stat: sha256.New(), contentTimes: times || in.ModTime}
	if k.hash {
		w.content = sha256.New()
	}
	if followed != "" {
		w.stat.Write([]byte("followed " + followed + "\x00"))
	}
	if err := w.add(p, ".", r, fi); err != nil {
		return inputPrint{}, err
	}
	fp := inputPrint{Stat: hex.EncodeToString(w.stat.Sum(nil))}
	if w.content != nil {
		fp.Content = hex.EncodeToString(w.content.Sum(nil))
	}
	return fp, nil
}

// statInput returns the lstat information of the input p or, when follow
// is set and p is a symbolic link, the stat information of what it
// resolves to and the link's target (followed).
func (k *keyer) statInput(p string, follow bool) (fi fs.FileInfo, followed string, err error) {
	if k.lstat != nil {
		fi, err = k.lstat(p)
	} else {
		k.st.calls.Add(1)
		fi, err = os.Lstat(p)
	}
	if err != nil || !follow || fi.Mode()&fs.ModeSymlink == 0 {
		return fi, "", err
	}
	k.st.calls.Add(2)
	if followed, err = os.Readlink(p); err != nil {
		return nil, "", err
	}
	fi, err = os.Stat(p)
	return fi, followed, err
}

// outputSum returns the sum of the entry output at the catalogue path r
// when it is another entry's output known to this run.
func (k *keyer) outputSum(m Entry, r string) (Sum, bool) {
	if r == "" || r == m.Name || k.output == nil {
		return Sum{}, false
	}
	return k.output(r)
}

// walker hashes one input tree into its stat fingerprint and, when content
// is not nil, its content fingerprint.
type walker struct {
	k            *keyer
	m            Entry
	stat         hash.Hash
	content      hash.Hash
	contentTimes bool // the content fingerprint holds the times
	buf          []byte
	links        map[[2]uint64]string // (dev, ino) -> first path, for hard links
}

// skip reports whether the catalogue path r is one of the catalogue's own
// files, which no input counts.
func skip(r string) bool {
	return skipChild(path.Dir(r), path.Base(r))
}

// skipChild reports whether the entry name of the folder at the
// catalogue path r is one of the catalogue's own files (the state, the
// lock, a temporary file), which no input counts.
func skipChild(r, name string) bool {
	return r == "." && (name == StateName || name == LockName) ||
		strings.HasPrefix(name, tmpPrefix) || strings.HasPrefix(name, "."+tmpPrefix)
}

// add hashes the file p, at relp within the input and at the catalogue
// path r ("" outside the catalogue), and everything under it. p may be ""
// for a file that is neither a folder, a link nor hashed (Options.Hash),
// which add does not open.
func (w *walker) add(p, relp, r string, fi fs.FileInfo) error {
	hs, hasHost := hostInfo(fi)
	link := w.firstLink(relp, fi, hs, hasHost)
	var target string
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, _ = os.Readlink(p)
	}
	b := w.appendMeta(w.buf[:0], relp, fi, hs, hasHost, link, target, true, true)
	w.stat.Write(b)
	if w.content != nil {
		b = w.appendMeta(b[:0], relp, fi, hs, hasHost, link, target, w.contentTimes, false)
		w.content.Write(b)
		if fi.Mode().IsRegular() {
			if err := w.hashContents(p); err != nil {
				return err
			}
		}
	}
	w.buf = b
	if !fi.IsDir() {
		return nil
	}
	return w.addChildren(p, relp, r)
}

// addOutput hashes the entry at relp within the input that is another
// entry's output, by its sum s.
func (w *walker) addOutput(relp string, s Sum) {
	b := fmt.Appendf(w.buf[:0], "%s\x00output %s\x00", relp, s)
	w.stat.Write(b)
	if w.content != nil {
		w.content.Write(b)
	}
	w.buf = b
}

// firstLink returns the path within the input of the first of the hard
// links to the file at relp seen so far, or "" when it is the first or
// has no other link; it notes relp as the first otherwise.
func (w *walker) firstLink(relp string, fi fs.FileInfo, hs hostStat, hasHost bool) string {
	if !hasHost || fi.IsDir() || hs.nlink <= 1 {
		return ""
	}
	id := [2]uint64{hs.dev, hs.ino}
	if first, ok := w.links[id]; ok {
		return first
	}
	if w.links == nil {
		w.links = map[[2]uint64]string{}
	}
	w.links[id] = relp
	return ""
}

// appendMeta appends to b the record of the file at relp: its path, mode
// (with its type) and size, its owner, device number (of a device), first
// hard link (link) and, when identity is set, the device and inode numbers
// it lies at, where the host gives them (hs, hasHost), its change and
// modification times when times is set, and its symbolic link target, each
// NUL terminated.
func (w *walker) appendMeta(b []byte, relp string, fi fs.FileInfo, hs hostStat, hasHost bool, link, target string, times, identity bool) []byte {
	b = append(b, relp...)
	b = append(b, 0)
	b = strconv.AppendUint(b, uint64(uint32(fi.Mode())), 8)
	b = append(b, 0)
	b = strconv.AppendInt(b, fi.Size(), 10)
	b = append(b, 0)
	if hasHost {
		b = strconv.AppendUint(b, uint64(hs.uid), 10)
		b = append(b, ':')
		b = strconv.AppendUint(b, uint64(hs.gid), 10)
		b = append(b, 0)
		if fi.Mode()&fs.ModeDevice != 0 {
			b = strconv.AppendUint(b, hs.rdev, 16)
			b = append(b, 0)
		}
		if identity {
			// Another file at the same path, however like the old
			// one in size and times, has other numbers.
			b = strconv.AppendUint(b, hs.dev, 16)
			b = append(b, ':')
			b = strconv.AppendUint(b, hs.ino, 16)
			b = append(b, 0)
		}
		if times && hs.ctime != 0 {
			// A file whose contents changed and whose modification
			// time was set back (touch -d) still has a new change
			// time.
			b = strconv.AppendInt(b, hs.ctime, 10)
			b = append(b, 0)
		}
		if link != "" {
			b = append(b, "link "+link+"\x00"...)
		}
	}
	if times {
		b = strconv.AppendInt(b, fi.ModTime().UnixNano(), 10)
		b = append(b, 0)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		b = append(b, target...)
		b = append(b, 0)
	}
	return b
}

// hashContents adds the regular file p's bytes to the content
// fingerprint.
func (w *walker) hashContents(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w.content, f)
	return err
}

// addChildren adds each entry of the directory p, at relp within the
// input and at the catalogue path r, in the order readDirInfo gives,
// leaving out the catalogue's own files (skipChild); an entry that is
// another entry's output counts by its sum. Only in a folder that holds
// an output of the manifest (keyer.outputDirs) are the entries' names
// looked up among the outputs, and only an entry that add opens gets
// its path made, so that a folder of plain files costs one fstatat per
// file and little else.
func (w *walker) addChildren(p, relp, r string) error {
	d := getDirBuf()
	defer d.release()
	ents, calls, err := readDirInfo(p, d)
	w.k.st.calls.Add(int64(calls))
	if err != nil {
		return err
	}
	outsHere := r != "" && w.k.outputDirs[r]
	for _, cfi := range ents {
		// Names from a directory hold no slash and are neither "." nor
		// "..": joining them needs no cleaning.
		name := cfi.Name()
		if r != "" && skipChild(r, name) {
			continue
		}
		crel := name
		if relp != "." {
			crel = relp + "/" + name
		}
		var cr string
		if r != "" && (outsHere || cfi.IsDir()) {
			cr = name
			if r != "." {
				cr = r + "/" + name
			}
		}
		if outsHere {
			if s, ok := w.k.outputSum(w.m, cr); ok {
				w.addOutput(crel, s)
				continue
			}
		}
		var cp string
		if m := cfi.Mode(); m.IsDir() || m&fs.ModeSymlink != 0 || w.content != nil && m.IsRegular() {
			cp = p + string(filepath.Separator) + name
		}
		if err := w.add(cp, crel, cr, cfi); err != nil {
			return err
		}
	}
	return nil
}

// outputStat is what the up-to-date check compares of an output file: what
// an input's stat fingerprint holds of a regular file that can change its
// bytes, namely its size, modification time, change time (zero where the
// host gives none) and device and inode numbers. An output rewritten in
// place with its modification time set back still has a new change time,
// and one replaced by another file (a rename, a copy) another inode.
type outputStat struct {
	Size, MtimeNs, CtimeNs int64
	Dev, Ino               uint64
}

// statOutput returns the outputStat of the output file p, which must be a
// regular file.
func statOutput(p string) (outputStat, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return outputStat{}, err
	}
	if !fi.Mode().IsRegular() {
		return outputStat{}, fmt.Errorf("%s is not a regular file", p)
	}
	o := outputStat{Size: fi.Size(), MtimeNs: fi.ModTime().UnixNano()}
	if hs, ok := hostInfo(fi); ok {
		o.CtimeNs, o.Dev, o.Ino = hs.ctime, hs.dev, hs.ino
	}
	return o, nil
}

// inputPrint is what one input was: its stat fingerprint (type, mode,
// size, owner, links, times, device and inode, link target; see
// fingerprint), always, and its content fingerprint (the same without the
// times, unless the output stores them, without device and inode, and with
// the contents) when the build hashed it (Options.Hash).
type inputPrint struct {
	Stat    string
	Content string // "" when not hashed
}

// unchanged reports whether the input now looks as old says it was. With
// hash (Options.Hash) the contents decide when old has them, so that new
// times alone (a checkout, touch) change nothing; otherwise, and without
// hash, the stat fingerprint does.
func (now inputPrint) unchanged(old inputPrint, hash bool) bool {
	if hash && old.Content != "" {
		return now.Content == old.Content
	}
	return now.Stat == old.Stat
}
