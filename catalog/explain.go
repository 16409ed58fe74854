package catalog

import (
	"fmt"
	"os"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/inspect"
)

// explainMismatch returns the structural diff between the file at old (the
// output kept in the catalogue) and the new output, as "fixturegen diff"
// prints it, indented, or "" when there is no old file.
func explainMismatch(old, new, name string) string {
	fa, err := os.Open(old)
	if err != nil {
		return ""
	}
	defer fa.Close()
	fb, err := os.Open(new)
	if err != nil {
		return ""
	}
	defer fb.Close()
	ia, errA := fa.Stat()
	ib, errB := fb.Stat()
	if errA != nil || errB != nil || !ia.Mode().IsRegular() {
		return ""
	}
	rep, err := inspect.Diff(fa, ia.Size(), fb, ib.Size())
	if err != nil {
		return ""
	}
	var buf strings.Builder
	if rep.Same {
		fmt.Fprintf(&buf, "\t%s: the existing file has the new bytes already: %s is what changed\n", name, SumName)
		return buf.String()
	}
	rep.Write(&buf, name+" (existing)", name+" (new)")
	var out strings.Builder
	for _, l := range strings.Split(strings.TrimRight(buf.String(), "\n"), "\n") {
		out.WriteString("\t" + l + "\n")
	}
	return out.String()
}
