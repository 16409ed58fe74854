package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// state is what the last build saw, kept in .fixturegen-state: per output,
// the key it was built with, what made the key (so that a mismatch can say
// what changed), and the output's size, modification time and sum when it
// was written.
type state struct {
	mu      sync.Mutex
	entries map[string]*stateEntry
	dirty   bool

	// calls counts the system calls the up-to-date checks make, for the
	// no-op build benchmark.
	calls atomic.Int64
}

// stateEntry is one output's record.
type stateEntry struct {
	Key       string
	Generator string
	Args      []string
	Inputs    map[string]string // input path -> fingerprint
	Size      int64
	MtimeNs   int64
	Sum       Sum
}

// stateHeader starts the state file; a file without it (an older
// version's) is ignored.
const stateHeader = "# fixturegen build state v3: what the last build saw. Do not commit; safe to delete.\n"

// readState reads the state file; a missing, unreadable or older one is
// empty, which only means that everything is rebuilt. Each line is one
// output's record, tab-separated: NAME KEY SIZE MTIME_NS SUM_SIZE SUM_HASH
// GENERATOR ARGS INPUTS, NAME and the last three quoted as Go strings, ARGS the
// words and INPUTS the path and fingerprint pairs, NUL-separated.
func readState(name string) *state {
	st := &state{entries: map[string]*stateEntry{}}
	data, err := os.ReadFile(name)
	if err != nil {
		return st
	}
	text, ok := strings.CutPrefix(string(data), stateHeader)
	if !ok {
		return st
	}
	for line := range strings.SplitSeq(text, "\n") {
		if e, n, ok := parseStateLine(line); ok {
			st.entries[n] = e
		}
	}
	return st
}

// parseStateLine reads one line of the state file.
func parseStateLine(line string) (*stateEntry, string, bool) {
	f := strings.Split(line, "\t")
	if len(f) != 9 {
		return nil, "", false
	}
	e := &stateEntry{Key: f[1], Sum: Sum{Hash: f[5]}}
	n, nerr := strconv.Unquote(f[0])
	if nerr != nil {
		return nil, "", false
	}
	var err [6]error
	e.Size, err[0] = strconv.ParseInt(f[2], 10, 64)
	e.MtimeNs, err[1] = strconv.ParseInt(f[3], 10, 64)
	e.Sum.Size, err[2] = strconv.ParseInt(f[4], 10, 64)
	var args, inputs string
	e.Generator, err[3] = strconv.Unquote(f[6])
	args, err[4] = strconv.Unquote(f[7])
	inputs, err[5] = strconv.Unquote(f[8])
	for _, e := range err {
		if e != nil {
			return nil, "", false
		}
	}
	e.Args = strings.Split(args, "\x00")
	e.Inputs = map[string]string{}
	if inputs != "" {
		kv := strings.Split(inputs, "\x00")
		if len(kv)%2 != 0 {
			return nil, "", false
		}
		for i := 0; i < len(kv); i += 2 {
			e.Inputs[kv[i]] = kv[i+1]
		}
	}
	return e, n, true
}

func (st *state) write(name string, t *temps) error {
	var b strings.Builder
	b.WriteString(stateHeader)
	st.mu.Lock()
	for _, n := range sortedKeys(st.entries) {
		e := st.entries[n]
		var in []string
		for _, p := range sortedKeys(e.Inputs) {
			in = append(in, p, e.Inputs[p])
		}
		fmt.Fprintf(&b, "%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\n", strconv.Quote(n), e.Key, e.Size, e.MtimeNs, e.Sum.Size, e.Sum.Hash,
			strconv.Quote(e.Generator), strconv.Quote(strings.Join(e.Args, "\x00")), strconv.Quote(strings.Join(in, "\x00")))
	}
	st.mu.Unlock()
	return writeFileAtomic(name, []byte(b.String()), t)
}

func (st *state) get(name string) *stateEntry {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.entries[name]
}

// upToDate reports whether the output name was last built with key and is
// still as it was written; it returns its recorded sum.
func (st *state) upToDate(name, key, outPath string) (Sum, bool) {
	s := st.get(name)
	if s == nil || s.Key != key {
		return Sum{}, false
	}
	st.calls.Add(1)
	fi, err := os.Lstat(outPath)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != s.Size || fi.ModTime().UnixNano() != s.MtimeNs || s.Sum.Size != s.Size {
		return Sum{}, false
	}
	return s.Sum, true
}

// record notes that name was built as k says.
func (st *state) record(name string, k *entryKey, outPath string, sum Sum) {
	fi, err := os.Lstat(outPath)
	st.mu.Lock()
	defer st.mu.Unlock()
	st.dirty = true
	if err != nil {
		delete(st.entries, name)
		return
	}
	st.entries[name] = &stateEntry{
		Key: k.key, Generator: k.generator, Args: k.args, Inputs: k.inputs,
		Size: fi.Size(), MtimeNs: fi.ModTime().UnixNano(), Sum: sum,
	}
}

// changes says what differs between the record of the last build and k:
// the generator, the command line, inputs by path.
func (s *stateEntry) changes(k *entryKey) []string {
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
		case old != k.inputs[p]:
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

// entryKey is what an entry's output depends on.
type entryKey struct {
	key       string
	generator string
	args      []string
	inputs    map[string]string // input path -> fingerprint
	order     []string          // input paths in command-line order
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
}

// key hashes the generator, the command line and every input's
// fingerprint.
func (k *keyer) key(m Entry, p *Plan) (*entryKey, error) {
	ek := &entryKey{generator: k.generator, args: m.Args, inputs: map[string]string{}}
	h := sha256.New()
	fmt.Fprintf(h, "fixturegen build key v2\x00%s\x00%t\x00%t\x00", k.generator, k.hash, p.Times)
	for _, a := range m.Args {
		io.WriteString(h, a+"\x00")
	}
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
		fmt.Fprintf(h, "input %s\x00%s\x00", in.Path, fp)
	}
	ek.key = hex.EncodeToString(h.Sum(nil))
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

// fingerprint hashes one input: its type, mode, size, owner, link target,
// device number, hard links within it, its modification and change times
// (unless Options.Hash, and the output does not hold times) or its
// contents (with Options.Hash), and everything under it for a directory. An input, or a
// file under an input directory, that is another entry's output counts by
// its sum; the catalogue's own files (state, lock, temporary files) do not
// count.
func (k *keyer) fingerprint(m Entry, in Input, times bool) (string, error) {
	p := in.Path
	if !filepath.IsAbs(p) {
		p = filepath.Join(k.dir, p)
	}
	h := sha256.New()
	r, inside := rel(k.dir, p)
	if !inside {
		r = ""
	}
	if s, ok := k.outputSum(m, r); ok {
		return "output " + s.String(), nil
	}
	k.st.calls.Add(1)
	var fi fs.FileInfo
	var err error
	if in.Follow {
		fi, err = os.Stat(p)
	} else {
		fi, err = os.Lstat(p)
	}
	if err != nil {
		if os.IsNotExist(err) {
			return "absent", nil
		}
		return "", err
	}
	w := &walker{k: k, m: m, h: h, contents: k.hash, times: !k.hash || times || in.ModTime, links: map[[2]uint64]string{}}
	if err := w.add(p, ".", r, fi); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// outputSum returns the sum of the entry output at the catalogue path r
// when it is another entry's output known to this run.
func (k *keyer) outputSum(m Entry, r string) (Sum, bool) {
	if r == "" || r == m.Name || k.output == nil {
		return Sum{}, false
	}
	return k.output(r)
}

// walker hashes one input tree.
type walker struct {
	k        *keyer
	m        Entry
	h        hash.Hash
	buf      []byte
	contents bool
	times    bool
	links    map[[2]uint64]string // (dev, ino) -> first path, for hard links
}

// skip reports whether the catalogue path r is one of the catalogue's own
// files, which no input counts.
func skip(r string) bool {
	base := path.Base(r)
	return r == StateName || r == LockName || strings.HasPrefix(base, tmpPrefix) || strings.HasPrefix(base, "."+tmpPrefix)
}

// add hashes the file p, at rel within the input and at the catalogue
// path r ("" outside the catalogue), and everything under it.
func (w *walker) add(p, relp, r string, fi fs.FileInfo) error {
	if r != "" && relp != "." && skip(r) {
		return nil
	}
	if s, ok := w.k.outputSum(w.m, r); ok && relp != "." {
		fmt.Fprintf(w.h, "%s\x00output %s\x00", relp, s)
		return nil
	}
	b := w.appendMeta(w.buf[:0], relp, fi)
	b, err := w.hashBody(b, p, fi)
	if err != nil {
		return err
	}
	w.h.Write(b)
	w.buf = b
	if !fi.IsDir() {
		return nil
	}
	return w.addChildren(p, relp, r)
}

// appendMeta appends to b the record of the file at relp: its path, mode
// and size, its owner, device number, change time and first hard link
// where the host gives them, and its modification time when w.times is
// set, each NUL terminated.
func (w *walker) appendMeta(b []byte, relp string, fi fs.FileInfo) []byte {
	b = append(b, relp...)
	b = append(b, 0)
	b = strconv.AppendUint(b, uint64(uint32(fi.Mode())), 8)
	b = append(b, 0)
	b = strconv.AppendInt(b, fi.Size(), 10)
	b = append(b, 0)
	if hs, ok := hostInfo(fi); ok {
		b = strconv.AppendUint(b, uint64(hs.uid), 10)
		b = append(b, ':')
		b = strconv.AppendUint(b, uint64(hs.gid), 10)
		b = append(b, 0)
		if fi.Mode()&fs.ModeDevice != 0 {
			b = strconv.AppendUint(b, hs.rdev, 16)
			b = append(b, 0)
		}
		if w.times && hs.ctime != 0 {
			// A file whose contents changed and whose modification
			// time was set back (touch -d) still has a new change
			// time.
			b = strconv.AppendInt(b, hs.ctime, 10)
			b = append(b, 0)
		}
		if !fi.IsDir() && hs.nlink > 1 {
			id := [2]uint64{hs.dev, hs.ino}
			if first, ok := w.links[id]; ok {
				b = append(b, "link "+first+"\x00"...)
			} else {
				w.links[id] = relp
			}
		}
	}
	if w.times {
		b = strconv.AppendInt(b, fi.ModTime().UnixNano(), 10)
		b = append(b, 0)
	}
	return b
}

// hashBody adds the file p's contents to the record b: a regular file's
// bytes, when w.contents is set, go to the hash after b (which is then
// emptied), and a symbolic link's target is appended to b. It returns
// what of b is left to hash.
func (w *walker) hashBody(b []byte, p string, fi fs.FileInfo) ([]byte, error) {
	switch {
	case fi.Mode().IsRegular() && w.contents:
		w.h.Write(b)
		b = b[:0]
		f, err := os.Open(p)
		if err != nil {
			return b, err
		}
		_, err = io.Copy(w.h, f)
		f.Close()
		if err != nil {
			return b, err
		}
	case fi.Mode()&fs.ModeSymlink != 0:
		t, _ := os.Readlink(p)
		b = append(b, t...)
		b = append(b, 0)
	}
	return b, nil
}

// addChildren adds each entry of the directory p, at relp within the
// input and at the catalogue path r, in the order readDirInfo gives.
func (w *walker) addChildren(p, relp, r string) error {
	ents, calls, err := readDirInfo(p)
	w.k.st.calls.Add(int64(calls))
	if err != nil {
		return err
	}
	for _, cfi := range ents {
		// Names from a directory hold no slash and are neither "." nor
		// "..": joining them needs no cleaning.
		name := cfi.Name()
		crel, cr := name, ""
		if relp != "." {
			crel = relp + "/" + name
		}
		if r != "" {
			cr = name
			if r != "." {
				cr = r + "/" + name
			}
		}
		if err := w.add(p+string(filepath.Separator)+name, crel, cr, cfi); err != nil {
			return err
		}
	}
	return nil
}
