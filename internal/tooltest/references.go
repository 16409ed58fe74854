package tooltest

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/fixturegen/fixturegen/internal/references"
)

// refs is the repository's references folder, found from the working
// directory (a package's folder under go test) when the package loads;
// "" outside a checkout.
var refs string

// init puts the folder of every reference tool that `go tool mage
// references` built from the repository's sources, as they are now, at
// the front of PATH, so that the tests (and the commands and scenarios
// they run) find freebsd-makefs, freebsd-mkimg and e2fsprogs without any
// PATH change by the user. A build from older sources is not used: the
// tests then skip, and say which command builds the references anew.
func init() {
	var err error
	if refs, err = references.Find("."); err != nil {
		return
	}
	var dirs []string
	for _, t := range references.Tools {
		if dir, ok := references.Built(refs, t); ok {
			dirs = append(dirs, dir)
		}
	}
	if len(dirs) > 0 {
		os.Setenv("PATH", strings.Join(append(dirs, os.Getenv("PATH")), string(os.PathListSeparator)))
	}
}

// ReferencesDir returns the repository's references folder (where
// FreeBSD's mkimg golden hexdumps sit, in freebsd-mkimg/tests), or ""
// when the tests do not run in a checkout.
func ReferencesDir() string { return refs }

// skips records why checks of this test binary were skipped, for the
// note M.Run prints at the end.
var skips struct {
	sync.Mutex
	count   int
	tools   map[string]bool // commands not found
	reasons map[string]bool // everything else (root, holes, ...)
}

// skipped records one skipped check: for want of the command tool when
// tool is not "", else for reason.
func skipped(tool, reason string) {
	skips.Lock()
	defer skips.Unlock()
	if skips.tools == nil {
		skips.tools, skips.reasons = map[string]bool{}, map[string]bool{}
	}
	skips.count++
	if tool != "" {
		skips.tools[tool] = true
	} else {
		skips.reasons[reason] = true
	}
}

// Skipped records that a check was left out because the command name
// is missing, for the note at the end of the run, as Need does; callers
// that look for tools themselves (the scenarios' [tool:NAME] condition)
// call it.
func Skipped(name string) { skipped(name, "") }

// skipNote returns the note that ends a test binary's run that skipped
// checks: how many, for want of what, and the one command that enables
// the ones a command can enable; "" when nothing was skipped.
func skipNote(pkg string) string {
	skips.Lock()
	defer skips.Unlock()
	if skips.count == 0 {
		return ""
	}
	var tools, pkgs, reasons []string
	build := false
	for name := range skips.tools {
		tools = append(tools, name)
		if _, ok := references.ToolOf(name); ok {
			build = true
		} else if p, ok := packages[name]; ok && !slices.Contains(pkgs, p) {
			pkgs = append(pkgs, p)
		}
	}
	for r := range skips.reasons {
		reasons = append(reasons, r)
	}
	sort.Strings(tools)
	sort.Strings(pkgs)
	sort.Strings(reasons)
	var b strings.Builder
	b.WriteString("fixturegen: " + pkg + ": ")
	b.WriteString(plural(skips.count, "check") + " skipped")
	var why []string
	if len(tools) > 0 {
		why = append(why, "for want of "+strings.Join(tools, ", "))
	}
	why = append(why, reasons...)
	b.WriteString(" (" + strings.Join(why, "; ") + ")")
	var run []string
	if build {
		run = append(run, references.Command)
	}
	if len(pkgs) > 0 {
		run = append(run, "sudo apt-get install "+strings.Join(pkgs, " "))
	}
	if len(run) > 0 {
		b.WriteString("; to run them: " + strings.Join(run, " && "))
	}
	b.WriteString("; " + RequireEnv + "=1 makes them fail\n")
	return b.String()
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// packageName returns the test binary's package as a path under the
// module ("imgkit/ffs"), from the working directory go test runs it in.
func packageName() string {
	wd, err := os.Getwd()
	if err != nil || refs == "" {
		return filepath.Base(wd)
	}
	rel, err := filepath.Rel(filepath.Dir(refs), wd)
	if err != nil {
		return filepath.Base(wd)
	}
	return filepath.ToSlash(rel)
}
