package fstree

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Options control how a tree's metadata is normalised. The zero value (or a
// nil *Options) keeps every time, owner and mode as found.
type Options struct {
	// Metadata, when MetadataGit, gives the nodes that WalkDir and FromFS
	// read (and so the Dir and FS sources) the owners and modes of a git
	// checkout and no hard links, before a spec is merged into the tree
	// (see Metadata). ApplySpec and Tree.Tree do not apply it: what a
	// spec says, and a tree built by hand, are kept.
	Metadata Metadata
	// Timestamp, when not the zero time, replaces every time of every node
	// (makefs -T), or with ClampTimes bounds them.
	Timestamp time.Time
	// ClampTimes makes Timestamp an upper bound instead: every time later
	// than it becomes it and earlier times are kept, the rule of
	// SOURCE_DATE_EPOCH (https://reproducible-builds.org/specs/source-date-epoch/).
	ClampTimes bool
	// LookupUser and LookupGroup map an mtree uname or gname that comes
	// without a uid or gid keyword to its number (makefs -N). When nil,
	// the host's user and group databases are used (os/user).
	LookupUser, LookupGroup func(name string) (uint32, error)
	// Xattrs makes WalkDir read each host file's extended attributes
	// (Linux only) into Node.Xattrs. MetadataGit drops them: git keeps
	// none.
	Xattrs bool
}

// SourceDateEpochEnv is the environment variable OptionsFromEnv reads.
const SourceDateEpochEnv = "SOURCE_DATE_EPOCH"

// ParseTimestamp parses the argument of makefs -T as FreeBSD makefs does:
// the modification time of the file arg names, when one exists (a relative
// path is taken from dir, or from the working directory when dir is ""),
// or else a number of seconds since the Unix epoch, read as strtoll with
// base 0 reads it (decimal, 0x hexadecimal, 0 octal).
func ParseTimestamp(dir, arg string) (time.Time, error) {
	t, _, err := ParseTimestampSource(dir, arg)
	return t, err
}

// ParseTimestampSource is ParseTimestamp that also reports whether the
// time is a file's (fromFile), so that a caller needs no second stat to
// tell.
func ParseTimestampSource(dir, arg string) (t time.Time, fromFile bool, err error) {
	p := arg
	if dir != "" && !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	if fi, err := os.Stat(p); err == nil {
		return fi.ModTime().UTC(), true, nil
	}
	sec, err := strconv.ParseInt(arg, 0, 64)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("%w: %q is neither an existing file nor a number of seconds since the epoch", ErrTimestamp, arg)
	}
	return time.Unix(sec, 0).UTC(), false, nil
}

// OptionsFromEnv returns options that clamp times to the environment
// variable SOURCE_DATE_EPOCH (a decimal number of seconds since the Unix
// epoch) when it is set and not empty, as getenv reports it (nil means
// os.Getenv): Timestamp is its time and ClampTimes is true. A malformed
// value is an error naming the variable.
func OptionsFromEnv(getenv func(string) string) (*Options, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	opts := new(Options)
	v := getenv(SourceDateEpochEnv)
	if v == "" {
		return opts, nil
	}
	sec, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || sec < 0 {
		return nil, fmt.Errorf("%w: %s=%q is not a non-negative decimal number of seconds", ErrTimestamp, SourceDateEpochEnv, v)
	}
	opts.Timestamp = time.Unix(sec, 0).UTC()
	opts.ClampTimes = true
	return opts, nil
}

// defaultTime is the time of nodes an mtree spec creates without a time
// keyword: Timestamp when set, else the Unix epoch.
func (o *Options) defaultTime() time.Time {
	if o != nil && !o.Timestamp.IsZero() {
		return o.Timestamp.UTC()
	}
	return time.Unix(0, 0).UTC()
}

// normalize applies the time rule (Times in DETAILS.md) to every
// node of t, and converts all times to UTC. It writes only the times that
// change, so that a tree the rule was applied to already (a tree shared by
// builds with the same options) is only read.
func (o *Options) normalize(t *Tree) {
	var rule func(time.Time) time.Time
	switch {
	case o != nil && !o.Timestamp.IsZero() && !o.ClampTimes:
		ts := o.Timestamp.UTC()
		rule = func(time.Time) time.Time { return ts }
	case o != nil && !o.Timestamp.IsZero():
		sde := o.Timestamp.UTC()
		rule = func(v time.Time) time.Time {
			if v.After(sde) {
				return sde
			}
			return v
		}
	default:
		rule = func(v time.Time) time.Time { return v }
	}
	fix := func(p *time.Time) {
		if p.IsZero() && (o == nil || o.ClampTimes || o.Timestamp.IsZero()) {
			return // a time the source does not have stays unset
		}
		if v := rule(*p).UTC(); !p.Equal(v) || p.Location() != time.UTC {
			*p = v
		}
	}
	t.eachNode(func(n *Node) {
		fix(&n.Atime)
		fix(&n.Mtime)
		fix(&n.Ctime)
		fix(&n.Birthtime)
	})
}
