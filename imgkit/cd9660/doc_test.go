package cd9660

import (
	"go/doc/comment"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestDocHeadings checks that every "# " line of the package comment is
// a heading for go doc, which needs a blank line before and after it:
// without one the section runs into the one before.
func TestDocHeadings(t *testing.T) {
	t.Parallel()
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	must(t, err)
	text := f.Doc.Text()
	var want []string
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "# ") {
			want = append(want, line[2:])
		}
	}
	var got []string
	for _, b := range new(comment.Parser).Parse(text).Content {
		if h, ok := b.(*comment.Heading); ok {
			got = append(got, headingText(h.Text))
		}
	}
	if strings.Join(got, "|") != strings.Join(want, "|") || len(want) < 2 {
		t.Errorf("go doc headings %q, want the %d sections %q", got, len(want), want)
	}
}

// headingText is the plain text of a heading.
func headingText(text []comment.Text) string {
	var b strings.Builder
	for _, x := range text {
		if p, ok := x.(comment.Plain); ok {
			b.WriteString(string(p))
		}
	}
	return b.String()
}
