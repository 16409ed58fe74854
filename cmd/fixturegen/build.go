package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

func init() {
	register(command{
		Name:    "build",
		Usage:   "build [-C dir] [-update] [-q] [name ...]",
		Summary: "build the fixture catalogue that a fixtures/manifest describes",
		Help:    buildHelp,
		Run:     runBuild,
	})
}

const buildHelp = `build runs every entry of the manifest (or only the named ones) and checks
each output against fixtures.sum, beside the manifest. With -update it
records the outputs' sizes and SHA-256 sums there instead.

The manifest is found in -C dir, or else in the fixtures folder of the
working directory or of the nearest parent, up to the module root (the
folder holding go.mod). It is plain text: '#' starts a comment, a line
ending in '\' continues on the next, and each entry reads

	NAME: COMMAND ARGS...

where COMMAND is a fixturegen command (makefs, ar) run in the manifest's
folder, NAME is the output it writes, given among ARGS, relative to that
folder. ARGS are split as a shell would, with '...' and "..." quotes.
SOURCE_DATE_EPOCH is unset for every entry; use -T for fixed times.

fixtures.sum holds one line per output, sorted: NAME SIZE sha256:HEX.
`

const (
	manifestName = "manifest"
	sumName      = "fixtures.sum"
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

func runBuild(e *env, args []string) error {
	fl := flag.NewFlagSet("build", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	dirFlag := fl.String("C", "", "")
	update := fl.Bool("update", false, "")
	quiet := fl.Bool("q", false, "")
	if err := fl.Parse(args); err != nil {
		return usagef("build: %v", err)
	}
	dir, err := findManifestDir(e, *dirFlag)
	if err != nil {
		return err
	}
	f, err := os.Open(filepath.Join(dir, manifestName))
	if err != nil {
		return fmt.Errorf("build: %v", err)
	}
	entries, err := parseManifest(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("build: %v", err)
	}
	selected := entries
	if names := fl.Args(); len(names) > 0 {
		selected = nil
		for _, n := range names {
			i := slices.IndexFunc(entries, func(m manifestEntry) bool { return m.Name == path.Clean(filepath.ToSlash(n)) })
			if i < 0 {
				return fmt.Errorf("build: %s: not in %s", n, manifestName)
			}
			selected = append(selected, entries[i])
		}
	}
	sums, err := readSums(filepath.Join(dir, sumName))
	if err != nil {
		return fmt.Errorf("build: %v", err)
	}

	out := e.Stdout
	if *quiet {
		out = io.Discard
	}
	sub := &env{
		Stdin:  e.Stdin,
		Stdout: out,
		Stderr: e.Stderr,
		Dir:    dir,
		Getenv: func(key string) string {
			if key == "SOURCE_DATE_EPOCH" {
				return ""
			}
			return e.getenv(key)
		},
	}
	have := make(map[string]sumEntry, len(selected))
	for _, m := range selected {
		if err := run(sub, m.Args); err != nil {
			return fmt.Errorf("build: %s:%d: %s: %v", manifestName, m.Line, m.Name, err)
		}
		s, err := sumFile(filepath.Join(dir, filepath.FromSlash(m.Name)))
		if err != nil {
			return fmt.Errorf("build: %s:%d: %s: %v", manifestName, m.Line, m.Name, err)
		}
		have[m.Name] = s
		fmt.Fprintf(out, "%s %s\n", m.Name, s)
	}

	if *update {
		if len(fl.Args()) == 0 {
			// A full build records exactly the manifest's outputs.
			clear(sums)
		}
		for n, s := range have {
			sums[n] = s
		}
		if err := writeSums(filepath.Join(dir, sumName), sums); err != nil {
			return fmt.Errorf("build: %v", err)
		}
		fmt.Fprintf(out, "build: recorded %d outputs in %s\n", len(have), sumName)
		return nil
	}

	var bad []string
	for _, m := range selected {
		want, ok := sums[m.Name]
		switch {
		case !ok:
			bad = append(bad, fmt.Sprintf("%s: not in %s", m.Name, sumName))
		case want != have[m.Name]:
			bad = append(bad, fmt.Sprintf("%s: sum mismatch (have %s, want %s)", m.Name, have[m.Name], want))
		}
	}
	if len(fl.Args()) == 0 {
		for _, n := range sortedKeys(sums) {
			if _, ok := have[n]; !ok {
				bad = append(bad, fmt.Sprintf("%s: in %s but not in %s", n, sumName, manifestName))
			}
		}
	}
	switch len(bad) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("build: %s", bad[0])
	}
	for _, b := range bad {
		fmt.Fprintf(e.Stderr, "fixturegen: build: %s\n", b)
	}
	return fmt.Errorf("build: %d outputs do not match %s (run with -update to record them)", len(bad), sumName)
}

// findManifestDir returns the folder holding the manifest: dir when it is
// given, or else the fixtures folder of e.Dir or of its nearest parent that
// has one, looking no further up than the module root.
func findManifestDir(e *env, dir string) (string, error) {
	if dir != "" {
		dir = e.abs(dir)
		if _, err := os.Stat(filepath.Join(dir, manifestName)); err != nil {
			return "", fmt.Errorf("build: -C %s: no %s there", dir, manifestName)
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
	return "", fmt.Errorf("build: no fixtures/%s in %s or its parents up to the module root; use -C dir", manifestName, e.abs("."))
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
			return nil, fmt.Errorf("%s:%d: want NAME: COMMAND ARGS...", manifestName, start)
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
		case "build", "help", "version":
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
		!strings.HasPrefix(name, "../") && !strings.Contains(name, `\`) && name != manifestName && name != sumName
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
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, b.Bytes(), 0o644); err != nil {
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
