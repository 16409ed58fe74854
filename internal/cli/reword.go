package cli

import (
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
)

// The image libraries name, in their errors, the field of their Options
// behind a value ("Options.Size", "Options.Density"), since that is what
// a Go caller sets. The command says the same in its own words: the flag
// or the -o key that sets the field.

// globalFlags maps the Options fields that makefs's global flags set to
// those flags; the fields have these names in every format's Options.
var globalFlags = map[string]string{
	"Size":          "-s",
	"MaxSize":       "-m",
	"MinSize":       "-M",
	"FreeBlocks":    "-b",
	"FreeBlocksPct": "-b",
	"FreeFiles":     "-f",
	"FreeFilesPct":  "-f",
	"Roundup":       "-R",
	"Offset":        "-O",
	"SectorSize":    "-S",
	"ByteOrder":     "-B",
	"Timestamp":     "-T",
}

// rewordError returns err with its message in the command's words, for a
// format whose -o keys help describes (the format's OptionHelp): where
// the message names a field F of Options that an -o key (help's Field
// column, the first key that sets it) or a global flag (globalFlags) sets,
// "Options.F is V" becomes "FLAG V given" ("-s 65536 given", "-o
// density=8192 given") and any other "Options.F" the flag alone ("-s",
// "-o density"). The result wraps err, so that errors.Is and errors.As
// find what they found in err; err itself is returned when its message
// names no such field, and nil for nil.
func rewordError(err error, help []imgfmt.Option) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	const prefix = "Options."
	var b strings.Builder
	changed := false
	for {
		i := strings.Index(msg, prefix)
		if i < 0 {
			break
		}
		b.WriteString(msg[:i])
		rest := msg[i+len(prefix):]
		n := 0
		for n < len(rest) && isIdentByte(rest[n]) {
			n++
		}
		field, rest := rest[:n], rest[n:]
		flag, given := globalFlags[field], ""
		for _, o := range help {
			if o.Field == field && field != "" {
				flag, given = "-o "+o.Key, "-o "+o.Key+"="
				break
			}
		}
		if flag == "" {
			b.WriteString(prefix + field)
			msg = rest
			continue
		}
		if given == "" {
			given = flag + " "
		}
		changed = true
		if after, ok := strings.CutPrefix(rest, " is "); ok {
			if end := valueEnd(after); end > 0 {
				b.WriteString(given + after[:end] + " given")
				msg = after[end:]
				continue
			}
		}
		b.WriteString(flag)
		msg = rest
	}
	if !changed {
		return err
	}
	b.WriteString(msg)
	return &rewordedError{msg: b.String(), err: err}
}

// valueEnd is the length of the value at the start of s: up to a space,
// ')', ',', ';' or the end.
func valueEnd(s string) int {
	if i := strings.IndexAny(s, " ),;"); i >= 0 {
		return i
	}
	return len(s)
}

// isIdentByte reports whether c may be part of a Go identifier (ASCII).
func isIdentByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// rewordedError is an error said in the command's words; it wraps the
// error of the library.
type rewordedError struct {
	msg string
	err error
}

func (e *rewordedError) Error() string { return e.msg }
func (e *rewordedError) Unwrap() error { return e.err }
