package fstree

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// maxSpecLine bounds the length of one logical spec line (continuations
// joined), so that a malformed spec cannot make ReadSpec hold unbounded
// memory for one line.
const maxSpecLine = 1 << 20

// Spec is a parsed mtree(5) specification: a tree of entries, each with the
// keywords given for it (after /set defaults are applied).
type Spec struct {
	// Name is the spec's file name, used in error messages ("name:line: ...").
	Name string
	// Dir is the directory against which relative paths in contents
	// keywords are resolved; empty means the current directory, where
	// makefs resolves them.
	Dir string

	root *specNode
}

// Keyword bits of specKeys.set.
const (
	kType = 1 << iota
	kMode
	kUID
	kGID
	kUname
	kGname
	kTime
	kSize
	kLink
	kContents
	kFlags
	kDevice
	kOptional
	kIgnore
	kNochange
)

// specKeys holds the keywords of one spec entry, or the /set defaults.
type specKeys struct {
	set          uint32 // which of the fields below are given (k* bits)
	typ          Type
	mode         uint32
	uid, gid     uint32
	uname, gname string
	time         time.Time
	size         int64
	link         string
	contents     string
	flags        uint32
	rdev         uint64
}

// merge sets in k every keyword that o sets. A user given by only one of
// uid and uname in o replaces both in k (and likewise for groups), as the
// later keyword wins in mtree.
func (k *specKeys) merge(o *specKeys) {
	if o.set&(kUID|kUname) == kUID || o.set&(kUID|kUname) == kUname {
		k.set &^= kUID | kUname
	}
	if o.set&(kGID|kGname) == kGID || o.set&(kGID|kGname) == kGname {
		k.set &^= kGID | kGname
	}
	if o.set&kType != 0 {
		k.typ = o.typ
	}
	if o.set&kMode != 0 {
		k.mode = o.mode
	}
	if o.set&kUID != 0 {
		k.uid = o.uid
	}
	if o.set&kGID != 0 {
		k.gid = o.gid
	}
	if o.set&kUname != 0 {
		k.uname = o.uname
	}
	if o.set&kGname != 0 {
		k.gname = o.gname
	}
	if o.set&kTime != 0 {
		k.time = o.time
	}
	if o.set&kSize != 0 {
		k.size = o.size
	}
	if o.set&kLink != 0 {
		k.link = o.link
	}
	if o.set&kContents != 0 {
		k.contents = o.contents
	}
	if o.set&kFlags != 0 {
		k.flags = o.flags
	}
	if o.set&kDevice != 0 {
		k.rdev = o.rdev
	}
	k.set |= o.set
}

// specNode is one entry of a spec.
type specNode struct {
	name     string
	line     int  // line of the entry that defined this node
	defined  bool // an entry line gave this node's keywords
	keys     specKeys
	parent   *specNode
	plen     int                  // length of the tree path, 0 for the root
	children []*specNode          // in order of first appearance
	byName   map[string]*specNode // children by name
}

// path returns the spec path of s, "." for the root.
func (s *specNode) path() string {
	if s.parent == nil {
		return "."
	}
	return s.parent.path() + "/" + s.name
}

// child returns the child of s named name, creating it if create is set.
func (s *specNode) child(name string, create bool) *specNode {
	if c := s.byName[name]; c != nil || !create {
		return c
	}
	c := &specNode{name: name, parent: s, plen: childPathLen(s.plen, name)}
	if s.byName == nil {
		s.byName = make(map[string]*specNode)
	}
	s.byName[name] = c
	s.children = append(s.children, c)
	return c
}

// SpecError is an error at a line of an mtree spec.
type SpecError struct {
	File string
	Line int
	Err  error
}

func (e *SpecError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }
func (e *SpecError) Unwrap() error { return e.Err }

// specParser holds the state of ReadSpec.
type specParser struct {
	spec *Spec
	opts SpecOptions
	line int       // line number of the current logical line's first line
	defs specKeys  // the /set defaults
	cwd  *specNode // the current directory of relative entries
}

// Duplicates says what ReadSpecOptions does with a second entry for a path
// (makefs -D, given once or more).
type Duplicates int

const (
	// DuplicatesError makes a second entry for a path an error, as makefs
	// without -D does.
	DuplicatesError Duplicates = iota
	// DuplicatesWarn keeps the first entry, ignores the later ones and
	// writes a warning for each to SpecOptions.Warn (makefs -D).
	DuplicatesWarn
	// DuplicatesIgnore keeps the first entry and ignores the later ones
	// silently (makefs -DD).
	DuplicatesIgnore
)

// SpecOptions control ReadSpecOptions.
type SpecOptions struct {
	Duplicates Duplicates
	// Warn receives one line per warning, "name:line: warning: ...";
	// nil discards them.
	Warn io.Writer
}

func (p *specParser) errorf(sentinel error, format string, args ...any) error {
	return &SpecError{File: p.spec.Name, Line: p.line, Err: fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)}
}

// ReadSpec parses the mtree(5) specification read from r, as FreeBSD
// makefs -F reads one; name is the spec's file name for error messages,
// which have the form "name:line: ...".
//
// It accepts a UTF-8 byte-order mark at the start (skipped), comments (a
// word starting with '#' starts one), blank lines,
// lines continued with a trailing backslash, the /set and /unset commands,
// ".." (up one directory), entries named by a relative name (a directory
// entry makes it the current directory; "." is the root) or by a path with
// a slash (relative to the root, an optional "./" in front, the current
// directory unchanged), and names and keyword values encoded as vis(3)
// encodes them (\ooo octal, \s, \t, \n, \\, \M-x, \^x, ...). A path whose
// parent the spec has not named is an error, and so is a second entry for
// a path, as makefs without -D makes it (see ReadSpecOptions).
//
// Keywords: type, mode (octal, or symbolic as chmod(1) takes it), uid,
// gid, uname, gname, time (seconds.nanoseconds), size, link, contents,
// flags (see ParseFlags), device (a number, or format,major,minor),
// optional, ignore and nochange. The checksum and bookkeeping keywords
// cksum, md5, md5digest, sha1, sha1digest, sha256, sha256digest, sha384,
// sha384digest, sha512, sha512digest, rmd160, rmd160digest,
// ripemd160digest, nlink, inode, resdevice and tags are accepted and
// ignored. Any other keyword is an error.
func ReadSpec(r io.Reader, name string) (*Spec, error) {
	return ReadSpecOptions(r, name, nil)
}

// ReadSpecOptions is ReadSpec with options: what a second entry for the
// same path does (makefs -D), and where warnings go. A nil opts is
// ReadSpec's behaviour.
func ReadSpecOptions(r io.Reader, name string, opts *SpecOptions) (*Spec, error) {
	spec := &Spec{Name: name, root: &specNode{name: "."}}
	p := &specParser{spec: spec, cwd: spec.root}
	if opts != nil {
		p.opts = *opts
	}
	br := bufio.NewReader(r)
	var logical strings.Builder
	lineno, start := 0, 0
	for {
		raw, err := br.ReadString('\n')
		if err != nil && err != io.EOF {
			return nil, &SpecError{File: name, Line: lineno + 1, Err: err}
		}
		if raw == "" && err == io.EOF {
			break
		}
		lineno++
		if logical.Len() == 0 {
			start = lineno
		}
		raw = strings.TrimSuffix(strings.TrimSuffix(raw, "\n"), "\r")
		if lineno == 1 {
			// A UTF-8 byte-order mark that an editor put at the start
			// is no part of the first word (FreeBSD's makefs would take
			// it for one).
			raw = strings.TrimPrefix(raw, "\ufeff")
		}
		cont := false
		if tail := len(raw) - len(strings.TrimRight(raw, `\`)); tail%2 == 1 {
			raw, cont = raw[:len(raw)-1], true
		}
		if logical.Len()+len(raw) > maxSpecLine {
			return nil, &SpecError{File: name, Line: start, Err: fmt.Errorf("%w: line longer than %d bytes", ErrSpecSyntax, maxSpecLine)}
		}
		logical.WriteString(raw)
		if cont && err != io.EOF {
			logical.WriteByte(' ')
			continue
		}
		p.line = start
		if perr := p.parseLine(logical.String()); perr != nil {
			return nil, perr
		}
		logical.Reset()
		if err == io.EOF {
			break
		}
	}
	return spec, nil
}

// parseLine parses one logical line.
func (p *specParser) parseLine(s string) error {
	words := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' })
	for i, w := range words {
		if strings.HasPrefix(w, "#") {
			words = words[:i]
			break
		}
	}
	if len(words) == 0 {
		return nil
	}
	switch w := words[0]; {
	case w == "/set":
		k, err := p.parseKeys(words[1:])
		if err != nil {
			return err
		}
		p.defs.merge(k)
		return nil
	case w == "/unset":
		return p.unset(words[1:])
	case strings.HasPrefix(w, "/"):
		return p.errorf(ErrSpecSyntax, "unknown command %q", w)
	case w == "..":
		if len(words) > 1 {
			return p.errorf(ErrSpecSyntax, `".." takes no keywords`)
		}
		if p.cwd.parent != nil {
			p.cwd = p.cwd.parent
		}
		return nil
	}
	return p.entryLine(words[0], words[1:])
}

// unset applies "/unset" with the keywords kws: each stops being a
// default ("all" clears them all); keywords makefs ignores are ignored.
func (p *specParser) unset(kws []string) error {
	for _, kw := range kws {
		if kw == "all" {
			p.defs = specKeys{}
			continue
		}
		bit, ok := keywordBits[kw]
		if !ok {
			if ignoredKeywords[kw] {
				continue
			}
			return p.errorf(ErrSpecKeyword, "%q", kw)
		}
		p.defs.set &^= bit
	}
	return nil
}

// entryLine applies the line of the entry name with the keywords kws (over
// the /set defaults); an entry for a directory by a relative name becomes
// the current directory.
func (p *specParser) entryLine(name string, kws []string) error {
	k, err := p.parseKeys(kws)
	if err != nil {
		return err
	}
	node, full, err := p.entryNode(name)
	if err != nil {
		return err
	}
	if node.defined {
		return p.duplicate(node)
	}
	keys := p.defs
	keys.merge(k)
	node.keys.merge(&keys)
	node.line = p.line
	node.defined = true
	if !full && node.keys.set&kType != 0 && node.keys.typ == TypeDir {
		p.cwd = node
	}
	return nil
}

// duplicate handles a second entry for node, as p.opts.Duplicates says:
// an error, or the entry ignored (after a warning, or silently). An
// ignored entry changes nothing, not even the current directory, as in
// makefs.
func (p *specParser) duplicate(node *specNode) error {
	switch p.opts.Duplicates {
	case DuplicatesError:
		return p.errorf(ErrSpecDuplicate, "%s (first at line %d)", node.path(), node.line)
	case DuplicatesWarn:
		if p.opts.Warn != nil {
			fmt.Fprintf(p.opts.Warn, "%s:%d: warning: duplicate definition of %s (first at line %d)\n", p.spec.Name, p.line, node.path(), node.line)
		}
	}
	return nil
}

// entryNode returns the spec node an entry's name word names, creating it,
// and whether the name was a full path.
func (p *specParser) entryNode(word string) (*specNode, bool, error) {
	if !strings.Contains(word, "/") {
		name, err := unvis(word)
		if err != nil {
			return nil, false, p.errorf(ErrSpecSyntax, "name %q: %v", word, err)
		}
		if name == "." {
			return p.cwd, false, nil
		}
		if err := checkName(name); err != nil {
			return nil, false, p.errorf(ErrSpecSyntax, "name %q: %v", word, err)
		}
		if childPathLen(p.cwd.plen, name) > MaxPath {
			return nil, false, p.tooLong()
		}
		return p.cwd.child(name, true), false, nil
	}
	parts := strings.Split(word, "/")
	if parts[0] == "." {
		parts = parts[1:]
	}
	if len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1] // a trailing slash
	}
	n := p.spec.root
	for i, part := range parts {
		name, err := unvis(part)
		if err == nil {
			err = checkName(name)
		}
		if err != nil {
			return nil, true, p.errorf(ErrSpecSyntax, "path %q: %v", word, err)
		}
		last := i == len(parts)-1
		if childPathLen(n.plen, name) > MaxPath {
			return nil, true, p.tooLong()
		}
		c := n.child(name, last)
		if c == nil {
			return nil, true, p.errorf(ErrSpecSyntax, "path %q: directory %s not in the spec", word, n.path()+"/"+name)
		}
		if !last && c.keys.set&kType != 0 && c.keys.typ != TypeDir {
			return nil, true, p.errorf(ErrSpecSyntax, "path %q: %s is a %v, not a directory", word, c.path(), c.keys.typ)
		}
		n = c
	}
	return n, true, nil
}

// tooLong is the error for an entry whose path would exceed MaxPath bytes,
// which bounds the depth of a spec's tree as it bounds WalkDir's.
func (p *specParser) tooLong() error {
	return p.errorf(ErrPathTooLong, "the entry's path is longer than %d bytes (fstree.MaxPath)", MaxPath)
}

// checkName reports whether name can be a file name.
func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("empty name")
	case name == "." || name == "..":
		return errors.New(`"." or ".." inside a path`)
	case strings.ContainsAny(name, "/\x00"):
		return errors.New("slash or NUL in a name")
	}
	return nil
}

// keywordBits maps the keywords that ReadSpec uses to their k* bits.
var keywordBits = map[string]uint32{
	"type": kType, "mode": kMode, "uid": kUID, "gid": kGID,
	"uname": kUname, "gname": kGname, "time": kTime, "size": kSize,
	"link": kLink, "contents": kContents, "flags": kFlags, "device": kDevice,
	"optional": kOptional, "ignore": kIgnore, "nochange": kNochange,
}

// ignoredKeywords are the keywords ReadSpec accepts and ignores: checksums
// and bookkeeping that do not change an image.
var ignoredKeywords = map[string]bool{
	"cksum": true, "md5": true, "md5digest": true, "sha1": true, "sha1digest": true,
	"sha256": true, "sha256digest": true, "sha384": true, "sha384digest": true,
	"sha512": true, "sha512digest": true, "rmd160": true, "rmd160digest": true,
	"ripemd160digest": true, "nlink": true, "inode": true, "resdevice": true,
	"tags": true,
}

// parseKeys parses keyword=value words.
func (p *specParser) parseKeys(words []string) (*specKeys, error) {
	k := new(specKeys)
	for _, w := range words {
		kw, val, hasVal := strings.Cut(w, "=")
		bit, ok := keywordBits[kw]
		if !ok {
			if ignoredKeywords[kw] {
				continue
			}
			return nil, p.errorf(ErrSpecKeyword, "%q", kw)
		}
		if bit&(kOptional|kIgnore|kNochange) != 0 {
			if hasVal {
				return nil, p.errorf(ErrSpecValue, "%s takes no value", kw)
			}
			k.set |= bit
			continue
		}
		if !hasVal {
			return nil, p.errorf(ErrSpecValue, "%s needs a value (%s=...)", kw, kw)
		}
		if err := k.parse(bit, val); err != nil {
			return nil, p.errorf(ErrSpecValue, "%s=%s: %w", kw, val, err)
		}
		k.set |= bit
	}
	return k, nil
}

// parse sets the keyword bit from its value text.
func (k *specKeys) parse(bit uint32, val string) error {
	var err error
	switch bit {
	case kType:
		if k.typ = parseType(val); k.typ == 0 {
			return errors.New("unknown type")
		}
	case kMode:
		k.mode, err = parseMode(val)
	case kUID:
		k.uid, err = parseUint32(val)
	case kGID:
		k.gid, err = parseUint32(val)
	case kUname:
		k.uname, err = unvis(val)
	case kGname:
		k.gname, err = unvis(val)
	case kTime:
		k.time, err = parseSpecTime(val)
	case kSize:
		k.size, err = strconv.ParseInt(val, 10, 64)
		if err == nil && k.size < 0 {
			err = errors.New("negative size")
		}
	case kLink:
		k.link, err = unvis(val)
	case kContents:
		k.contents, err = unvis(val)
		if err == nil && k.contents == "" {
			err = errors.New("empty path")
		}
	case kFlags:
		k.flags, err = ParseFlags(val)
	case kDevice:
		k.rdev, err = parseDevice(val)
	}
	if ne, ok := err.(*strconv.NumError); ok {
		err = ne.Err
	}
	return err
}

// parseUint32 parses a decimal number of at most 32 bits.
func parseUint32(s string) (uint32, error) {
	v, err := strconv.ParseUint(s, 10, 32)
	return uint32(v), err
}

// parseSpecTime parses an mtree time: seconds, optionally followed by a
// dot and a number of nanoseconds (mtree writes nine digits; as in mtree,
// the digits are a count of nanoseconds, not a decimal fraction).
func parseSpecTime(s string) (time.Time, error) {
	secs, nsecs, hasDot := strings.Cut(s, ".")
	sec, err := strconv.ParseInt(secs, 10, 64)
	if err != nil {
		return time.Time{}, err
	}
	var nsec uint64
	if hasDot {
		if nsec, err = strconv.ParseUint(nsecs, 10, 64); err != nil {
			return time.Time{}, err
		}
		if nsec >= 1e9 {
			return time.Time{}, errors.New("nanoseconds out of range")
		}
	}
	return time.Unix(sec, int64(nsec)).UTC(), nil
}

// deviceFormats are the format names the device keyword takes before
// major,minor; all use the same two numbers.
var deviceFormats = map[string]bool{
	"native": true, "386bsd": true, "4bsd": true, "bsdos": true, "freebsd": true,
	"hpux": true, "isc": true, "linux": true, "netbsd": true, "osf1": true,
	"sco": true, "solaris": true, "sunos": true, "svr3": true, "svr4": true,
	"ultrix": true,
}

// parseDevice parses a device keyword value: format,major,minor, or a bare
// number taken in the encoding of Node.Rdev.
func parseDevice(s string) (uint64, error) {
	f := strings.Split(s, ",")
	if len(f) == 1 {
		return strconv.ParseUint(s, 0, 64)
	}
	if len(f) != 3 || !deviceFormats[f[0]] {
		return 0, errors.New("want format,major,minor")
	}
	major, err := strconv.ParseUint(f[1], 0, 32)
	if err != nil {
		return 0, err
	}
	minor, err := strconv.ParseUint(f[2], 0, 32)
	if err != nil {
		return 0, err
	}
	return Mkdev(uint32(major), uint32(minor)), nil
}

// parseMode parses an octal mode (at most 07777) or a symbolic one as
// chmod(1) takes it, applied to mode 0: comma-separated clauses of
// [ugoa]*[+-=][rwxXst]*, as in "u=rwx,go=rx".
func parseMode(s string) (uint32, error) {
	if s != "" && s[0] >= '0' && s[0] <= '9' {
		v, err := strconv.ParseUint(s, 8, 32)
		if err != nil {
			return 0, err
		}
		if v > 07777 {
			return 0, errors.New("mode above 07777")
		}
		return uint32(v), nil
	}
	var mode uint32
	for _, clause := range strings.Split(s, ",") {
		who, ops := modeWho(clause)
		if ops == "" {
			return 0, errors.New("bad symbolic mode")
		}
		var err error
		if mode, err = applyModeOps(mode, who, ops); err != nil {
			return 0, err
		}
	}
	return mode, nil
}

// modeWho reads the [ugoa]* prefix of a symbolic mode clause: the mode bits
// it names (all of them when it names none) and the rest of the clause.
func modeWho(clause string) (uint32, string) {
	var who uint32
	i := 0
loop:
	for ; i < len(clause); i++ {
		switch clause[i] {
		case 'u':
			who |= 04700
		case 'g':
			who |= 02070
		case 'o':
			who |= 01007
		case 'a':
			who |= 07777
		default:
			break loop
		}
	}
	if who == 0 {
		who = 07777
	}
	return who, clause[i:]
}

// modePerms are the mode bits of each permission letter of a symbolic mode.
var modePerms = map[byte]uint32{'r': 0444, 'w': 0222, 'x': 0111, 'X': 0111, 's': 06000, 't': 01000}

// applyModeOps applies the operations of a symbolic mode clause, each
// [+-=][rwxXst]*, to mode for the bits who.
func applyModeOps(mode, who uint32, ops string) (uint32, error) {
	for i := 0; i < len(ops); {
		op := ops[i]
		if op != '+' && op != '-' && op != '=' {
			return 0, errors.New("bad symbolic mode")
		}
		i++
		var perm uint32
		for ; i < len(ops) && !strings.ContainsRune("+-=", rune(ops[i])); i++ {
			p, ok := modePerms[ops[i]]
			if !ok {
				return 0, errors.New("bad symbolic mode")
			}
			perm |= p
		}
		perm &= who
		switch op {
		case '+':
			mode |= perm
		case '-':
			mode &^= perm
		case '=':
			mode = mode&^who | perm
		}
	}
	return mode, nil
}

// unvis decodes a name or value as vis(3) encodes it for mtree(5).
func unvis(s string) (string, error) {
	i := strings.IndexByte(s, '\\')
	if i < 0 {
		return s, nil
	}
	b := make([]byte, 0, len(s))
	b = append(b, s[:i]...)
	for ; i < len(s); i++ {
		if s[i] != '\\' {
			b = append(b, s[i])
			continue
		}
		var err error
		if b, i, err = unvisEscape(b, s, i+1); err != nil {
			return "", err
		}
	}
	return string(b), nil
}

// visEscapes are the one-letter escapes of vis(3) and the bytes they
// stand for.
var visEscapes = map[byte]byte{
	'\\': '\\', 'n': '\n', 'r': '\r', 't': '\t', 'b': '\b', 'a': '\a', 'f': '\f', 'v': '\v', 's': ' ', 'E': 033,
}

// unvisEscape decodes the escape of s whose first character after the
// backslash is s[i], appends what it stands for to b, and returns b and
// the index of the escape's last character.
func unvisEscape(b []byte, s string, i int) ([]byte, int, error) {
	if i == len(s) {
		return nil, 0, errors.New("backslash at the end")
	}
	c := s[i]
	if v, ok := visEscapes[c]; ok {
		return append(b, v), i, nil
	}
	switch c {
	case '0', '1', '2', '3', '4', '5', '6', '7':
		v := 0
		j := i
		for ; j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7'; j++ {
			v = v*8 + int(s[j]-'0')
		}
		if v > 0377 {
			return nil, 0, errors.New("octal escape above \\377")
		}
		return append(b, byte(v)), j - 1, nil
	case '$':
		return b, i, nil // a marker that encodes nothing
	case 'M':
		if i+2 >= len(s) {
			return nil, 0, errors.New("short \\M escape")
		}
		switch s[i+1] {
		case '-':
			return append(b, s[i+2]|0x80), i + 2, nil
		case '^':
			return append(b, ctrl(s[i+2])|0x80), i + 2, nil
		}
		return nil, 0, errors.New("bad \\M escape")
	case '^':
		if i+1 >= len(s) {
			return nil, 0, errors.New("short \\^ escape")
		}
		return append(b, ctrl(s[i+1])), i + 1, nil
	}
	return nil, 0, fmt.Errorf("unknown escape \\%c", c)
}

// ctrl returns the control character ^c.
func ctrl(c byte) byte {
	if c == '?' {
		return 0177
	}
	return c & 037
}
