package catalog

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// state is what the last build saw, kept in .fixturegen-state: per output,
// the key of its command line and generator, what made the key (so that a
// mismatch can say what changed), the fingerprints of its inputs, and the
// output's stat (outputStat) and sum when it was written.
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
	Inputs    map[string]inputPrint // by input path
	Output    outputStat
	Sum       Sum
}

// stateHeader starts the state file; a file without it (an older
// version's) is ignored, which only rebuilds every output once. Bump its
// version whenever the format of the lines, or what a field means,
// changes, what an input fingerprint hashes (fingerprint, appendMeta)
// included. A change to what an entry's key hashes bumps keyVersion
// instead, and a new fixturegen or Go version bumps nothing: the
// generator (Generator) changes by itself.
const stateHeader = "# fixturegen build state v5: what the last build saw. Do not commit; safe to delete.\n"

// readState reads the state file; a missing, unreadable or older one is
// empty, which only means that everything is rebuilt. Each line is one
// output's record, tab-separated: NAME KEY SIZE MTIME_NS CTIME_NS DEV INO
// SUM_SIZE SUM_HASH GENERATOR ARGS INPUTS (SIZE to INO the output's
// outputStat), NAME and the last three quoted as Go strings, ARGS
// the words and INPUTS the path, stat fingerprint and content fingerprint
// (empty when not hashed) of each input, NUL-separated. A line that does
// not read so (a file cut short, edited by hand) is dropped and the others
// kept, which rebuilds only the outputs whose lines went.
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
	if len(f) != 12 {
		return nil, "", false
	}
	e := &stateEntry{Key: f[1], Sum: Sum{Hash: f[8]}}
	n, nerr := strconv.Unquote(f[0])
	if nerr != nil {
		return nil, "", false
	}
	var err [9]error
	e.Output.Size, err[0] = strconv.ParseInt(f[2], 10, 64)
	e.Output.MtimeNs, err[1] = strconv.ParseInt(f[3], 10, 64)
	e.Output.CtimeNs, err[2] = strconv.ParseInt(f[4], 10, 64)
	e.Output.Dev, err[3] = strconv.ParseUint(f[5], 10, 64)
	e.Output.Ino, err[4] = strconv.ParseUint(f[6], 10, 64)
	e.Sum.Size, err[5] = strconv.ParseInt(f[7], 10, 64)
	var args, inputs string
	e.Generator, err[6] = strconv.Unquote(f[9])
	args, err[7] = strconv.Unquote(f[10])
	inputs, err[8] = strconv.Unquote(f[11])
	for _, e := range err {
		if e != nil {
			return nil, "", false
		}
	}
	e.Args = strings.Split(args, "\x00")
	e.Inputs = map[string]inputPrint{}
	if inputs != "" {
		f := strings.Split(inputs, "\x00")
		if len(f)%3 != 0 {
			return nil, "", false
		}
		for i := 0; i < len(f); i += 3 {
			e.Inputs[f[i]] = inputPrint{Stat: f[i+1], Content: f[i+2]}
		}
	}
	return e, n, true
}

// write replaces the state file name with st's records, in the format
// readState reads, tracking its temporary file in t.
func (st *state) write(name string, t *temps) error {
	var b strings.Builder
	b.WriteString(stateHeader)
	st.mu.Lock()
	for _, n := range sortedKeys(st.entries) {
		e := st.entries[n]
		var in []string
		for _, p := range sortedKeys(e.Inputs) {
			in = append(in, p, e.Inputs[p].Stat, e.Inputs[p].Content)
		}
		o := e.Output
		fmt.Fprintf(&b, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\n", strconv.Quote(n), e.Key, o.Size, o.MtimeNs, o.CtimeNs, o.Dev, o.Ino, e.Sum.Size, e.Sum.Hash,
			strconv.Quote(e.Generator), strconv.Quote(strings.Join(e.Args, "\x00")), strconv.Quote(strings.Join(in, "\x00")))
	}
	st.mu.Unlock()
	return writeFileAtomic(name, []byte(b.String()), t)
}

// get returns the record of the output name, or nil.
func (st *state) get(name string) *stateEntry {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.entries[name]
}
