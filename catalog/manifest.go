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
	"unicode"
	"unicode/utf8"

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

// ParseManifest reads the entries of a manifest: '#' starts a comment
// that ends at the end of its line, a line ending in '\' outside a
// comment continues on the next, words are split as SplitWords splits
// them, and each entry reads NAME: COMMAND ARGS..., NAME being an output
// name that CheckName accepts and that appears among ARGS. A UTF-8
// byte-order mark at the start is skipped, a line may end in CR LF, and a
// NUL byte is an error.
func ParseManifest(r io.Reader) ([]Entry, error) {
	var entries []Entry
	seen := map[string]int{}
	var outputs outputSet
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	lineNo, start := 0, 0
	var text strings.Builder
	for sc.Scan() {
		lineNo++
		if text.Len() == 0 {
			start = lineNo
		}
		line := sc.Text() // without its LF or CR LF
		if lineNo == 1 {
			line = strings.TrimPrefix(line, bom)
		}
		if strings.IndexByte(line, 0) >= 0 {
			// No command-line word can hold one, and the state file
			// separates words with it.
			return nil, fmt.Errorf("%s:%d: a NUL byte (is the manifest a text file?)", ManifestName, lineNo)
		}
		text.WriteString(line)
		full := text.String()
		words, err := SplitWords(full)
		if errors.Is(err, errContinues) {
			text.Reset()
			text.WriteString(full[:len(full)-1])
			text.WriteByte(' ')
			continue
		}
		text.Reset()
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
		if err := CheckName(name); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", ManifestName, start, err)
		}
		if prev, dup := seen[name]; dup {
			return nil, fmt.Errorf("%s:%d: %s: defined twice (lines %d and %d)", ManifestName, start, name, prev, start)
		}
		if err := outputs.add(Entry{Line: start, Name: name}); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", ManifestName, start, err)
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

// bom is the UTF-8 byte-order mark that some editors put at the start of
// a text file; ParseManifest and ReadSums skip it.
const bom = "\ufeff"

// ErrName is wrapped by CheckName's errors: an output name that the
// catalogue cannot build, or could not write to fixtures.sum and read
// back.
var ErrName = errors.New("bad output name")

// ValidName reports whether name can be an output of a manifest (see
// CheckName).
func ValidName(name string) bool { return CheckName(name) == nil }

// CheckName returns nil when name can be an output of a manifest, and
// otherwise an error wrapping ErrName that names it and says why. A name
// is a clean, relative, slash-separated path inside the manifest folder
// ("a.img", "sub/b.img"; not "./a", "a//b", "a/", "/a", "../a"), none of
// the catalogue's own files in any letter case, and it is written to
// fixtures.sum as it is, so that every byte of it must read back the same
// and mean one file on every host: valid UTF-8 without blanks (a space,
// tab or any Unicode space separates the fields of fixtures.sum), control
// or other invisible characters, backslashes (a separator on Windows), and
// not starting with '#' (a comment in the manifest).
func CheckName(name string) error {
	bad := func(why string) error { return fmt.Errorf("%q: %w: %s", name, ErrName, why) }
	switch {
	case name == "" || name == "." || name == "..":
		return bad("not a file path")
	case !utf8.ValidString(name):
		return bad("not valid UTF-8")
	case path.IsAbs(name):
		return bad("an absolute path; name a path inside the manifest's folder")
	case strings.HasPrefix(name, "../"):
		return bad("outside the manifest's folder")
	case path.Clean(name) != name:
		return bad(fmt.Sprintf("not a clean slash-separated path (write %q)", path.Clean(name)))
	case name[0] == '#':
		return bad("starts with '#', which starts a comment")
	}
	for _, r := range name {
		switch {
		case r == '\\':
			return bad("holds a backslash, a path separator on Windows")
		case r == ' ' || r == '\t':
			return bad(fmt.Sprintf("holds a %s, which separates the fields of %s", map[rune]string{' ': "space", '\t': "tab"}[r], SumName))
		case unicode.IsSpace(r):
			return bad(fmt.Sprintf("holds the blank %U, which separates the fields of %s", r, SumName))
		case !unicode.IsGraphic(r):
			return bad(fmt.Sprintf("holds the control or invisible character %U", r))
		}
	}
	base := path.Base(name)
	for _, own := range []string{ManifestName, SumName, StateName, LockName} {
		if foldKey(name) == foldKey(own) {
			return bad("the catalogue's own file " + own)
		}
	}
	if strings.HasPrefix(foldKey(base), foldKey(tmpPrefix)) {
		return bad("the name of a temporary file (" + tmpPrefix + "*)")
	}
	return nil
}

// outputSet holds the outputs of a manifest read so far, by foldKey, so
// that two outputs that would be one file (or a file and a folder) on a
// case-insensitive file system, as on macOS and Windows, are refused on
// every host.
type outputSet struct {
	files   map[string]Entry // by foldKey of the name
	folders map[string]Entry // by foldKey of each folder above an output: the first output there
}

// add records m, or returns the error of a clash with an earlier output:
// names that differ only in letter case ("A.img", "a.img"), or one that
// is a folder of another ("a" and "a/b", also "A" and "a/b").
func (s *outputSet) add(m Entry) error {
	if s.files == nil {
		s.files, s.folders = map[string]Entry{}, map[string]Entry{}
	}
	k := foldKey(m.Name)
	if o, ok := s.files[k]; ok {
		return fmt.Errorf("%s: differs from %s (line %d) only in letter case, which is one file on macOS and Windows", m.Name, o.Name, o.Line)
	}
	if o, ok := s.folders[k]; ok {
		return fmt.Errorf("%s: is a folder holding the output %s (line %d)", m.Name, o.Name, o.Line)
	}
	for d := path.Dir(m.Name); d != "."; d = path.Dir(d) {
		if o, ok := s.files[foldKey(d)]; ok {
			return fmt.Errorf("%s: its folder %s is the output %s (line %d)", m.Name, d, o.Name, o.Line)
		}
	}
	s.files[k] = m
	for d := path.Dir(m.Name); d != "."; d = path.Dir(d) {
		if _, ok := s.folders[foldKey(d)]; !ok {
			s.folders[foldKey(d)] = m
		}
	}
	return nil
}

// foldKey returns s with every letter replaced by the smallest of the
// letters that Unicode simple case folding makes equal to it, so that two
// strings have the same key exactly when strings.EqualFold says they are
// equal.
func foldKey(s string) string {
	var b strings.Builder
	for _, r := range s {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		b.WriteRune(m)
	}
	return b.String()
}

// errContinues is SplitWords's error for a line that ends in a backslash
// outside single quotes and comments: ParseManifest joins the next line.
var errContinues = errors.New("'\\' at the end of the line")

// SplitWords splits a line into words as a POSIX shell would without
// expansions: blanks separate words, '...' quotes literally, "..." quotes
// with \" \\ \$ and \` as escapes, a backslash outside quotes escapes the
// next character, and an unquoted '#' starting a word begins a comment
// that runs to the end of the line, backslashes and all.
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
				return nil, errContinues
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
				if s[i] == '\\' && i == len(s)-1 {
					return nil, errContinues
				}
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
