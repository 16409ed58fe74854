package catalog

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fixturegen/fixturegen/internal/tempfile"
)

// Names of the files of a catalogue folder.
const (
	ManifestName = "manifest"
	SumName      = "fixtures.sum"
	StateName    = ".fixturegen-state"
	LockName     = ".fixturegen-lock"

	// tmpPrefix starts the name of every temporary file and directory a
	// run makes (the outputs, the sums, the state, verify's copy) and of
	// those the commands make beside their outputs, so that a build finds
	// those of killed runs and Verify does not copy them.
	tmpPrefix = tempfile.Prefix
)

// Entry is one NAME: COMMAND ARGS... entry of a manifest.
type Entry struct {
	Line int      // first line of the entry, from 1
	Name string   // output path, slash-separated, relative to the manifest folder
	Args []string // the command line: COMMAND and its arguments
}

// Catalog is a manifest with the folder it lives in.
type Catalog struct {
	Dir     string // the manifest's folder, absolute
	Entries []Entry
}

// Load reads the manifest of the catalogue in dir.
func Load(dir string) (*Catalog, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(dir, ManifestName))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := ParseManifest(f)
	if err != nil {
		return nil, err
	}
	return &Catalog{Dir: dir, Entries: entries}, nil
}

// ErrNoManifest is returned by Find when no folder holds a manifest.
var ErrNoManifest = errors.New("catalog: no fixtures/manifest")

// Find returns the folder of the catalogue for the working directory wd:
// the fixtures folder of wd or of its nearest parent that has one (holding
// a manifest), looking no further up than the module root (the folder
// holding go.mod). The error wraps ErrNoManifest when there is none.
func Find(wd string) (string, error) {
	wd, err := filepath.Abs(wd)
	if err != nil {
		return "", err
	}
	for d := wd; ; {
		cand := filepath.Join(d, "fixtures")
		if fi, err := os.Stat(filepath.Join(cand, ManifestName)); err == nil && fi.Mode().IsRegular() {
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
	return "", fmt.Errorf("%w in %s or its parents up to the module root", ErrNoManifest, wd)
}

// Select returns the entries named (all of them when names is empty), in
// the order named, each once.
func (c *Catalog) Select(names []string) ([]Entry, error) {
	if len(names) == 0 {
		return c.Entries, nil
	}
	var sel []Entry
	for _, n := range names {
		want := path.Clean(filepath.ToSlash(n))
		i := slices.IndexFunc(c.Entries, func(m Entry) bool { return m.Name == want })
		if i < 0 {
			return nil, fmt.Errorf("%s: not in %s", n, ManifestName)
		}
		if !slices.ContainsFunc(sel, func(m Entry) bool { return m.Name == want }) {
			sel = append(sel, c.Entries[i])
		}
	}
	return sel, nil
}

// ParseManifest reads the entries of a manifest: '#' starts a comment, a
// line ending in '\' continues on the next, words are split as SplitWords
// splits them, and each entry reads NAME: COMMAND ARGS..., NAME being a
// clean relative slash-separated path that appears among ARGS.
func ParseManifest(r io.Reader) ([]Entry, error) {
	var entries []Entry
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
		words, err := SplitWords(full)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", ManifestName, start, err)
		}
		if len(words) == 0 {
			continue
		}
		name, ok := strings.CutSuffix(words[0], ":")
		if !ok || name == "" {
			return nil, fmt.Errorf("%s:%d: want a line \"NAME: COMMAND ARGS...\"", ManifestName, start)
		}
		if !ValidName(name) {
			return nil, fmt.Errorf("%s:%d: %q: output name must be a clean relative slash-separated path", ManifestName, start, name)
		}
		if prev, dup := seen[name]; dup {
			return nil, fmt.Errorf("%s:%d: %s: already built at line %d", ManifestName, start, name, prev)
		}
		seen[name] = start
		args := words[1:]
		if len(args) == 0 {
			return nil, fmt.Errorf("%s:%d: %s: no command", ManifestName, start, name)
		}
		switch args[0] {
		case "build", "verify", "help", "version", "diff", "ls", "cat":
			return nil, fmt.Errorf("%s:%d: %s: command %s cannot build a fixture", ManifestName, start, name, args[0])
		}
		if !slices.ContainsFunc(args[1:], func(a string) bool { return a == name || path.Clean(filepath.ToSlash(a)) == name }) {
			return nil, fmt.Errorf("%s:%d: %s: the command line does not name its output %s", ManifestName, start, name, name)
		}
		entries = append(entries, Entry{Line: start, Name: name, Args: args})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %v", ManifestName, lineNo+1, err)
	}
	if text.Len() > 0 {
		return nil, fmt.Errorf("%s:%d: '\\' continues past the last line", ManifestName, start)
	}
	return entries, nil
}

// ValidName reports whether name can be an output of a manifest: a clean,
// relative, slash-separated path that stays inside the manifest folder and
// is none of the catalogue's own files.
func ValidName(name string) bool {
	base := path.Base(name)
	return path.Clean(name) == name && !path.IsAbs(name) && name != "." && name != ".." &&
		!strings.HasPrefix(name, "../") && !strings.Contains(name, `\`) && name != ManifestName &&
		name != SumName && name != StateName && name != LockName && !strings.HasPrefix(base, tmpPrefix)
}

// SplitWords splits a line into words as a POSIX shell would without
// expansions: blanks separate words, '...' quotes literally, "..." quotes
// with \" \\ \$ and \` as escapes, a backslash outside quotes escapes the
// next character, and an unquoted '#' starting a word begins a comment.
func SplitWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
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
