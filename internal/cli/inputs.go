package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/fixturegen/fixturegen/catalog"
	"github.com/fixturegen/fixturegen/imgkit/arcmd"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/makefs"
)

// Runner returns the catalogue runner of the fixturegen command: it runs
// the manifest's command lines (makefs, ar, ranlib, mkimg) in-process, as
// "fixturegen build" does, and plans their inputs with the commands' own
// argument parsers. magefixtures and fixturetest use it, so every entry
// point plans and runs a line the same way: through catalogArgs, which
// gives makefs lines --metadata=git.
func Runner() catalog.Runner { return runner{} }

// catalogArgs returns the command line args of a manifest entry as the
// runner plans and runs it, and the number of words it inserted before
// the command's own arguments: a makefs or cpio line runs as if
// --metadata=git were its first option, so that its image holds only what git keeps of
// the entry's inputs and one sum holds in every checkout; an entry that
// writes --metadata=host opts out, since the last --metadata wins.
func catalogArgs(args []string) ([]string, int) {
	if len(args) == 0 || args[0] != "makefs" && args[0] != "cpio" && !isMke2fs(args[0]) {
		return args, 0
	}
	return append([]string{args[0], "--metadata=git"}, args[1:]...), 1
}

type runner struct{}

// planners say, per command, which arguments of a command line name the
// output and the files it reads. Tests add their hidden commands.
var planners = map[string]func(e *env, args []string) (*catalog.Plan, error){
	"makefs": planMakefs,
	"ar":     planAr,
	"ranlib": planRanlib,
	"mkimg":  planMkimg,
	"cpio":   planCpio,
}

func init() {
	for _, name := range mke2fsNames {
		planners[name] = planMke2fs(name)
	}
}

func isMke2fs(name string) bool {
	for _, n := range mke2fsNames {
		if n == name {
			return true
		}
	}
	return false
}

// Plan implements catalog.Runner.
func (runner) Plan(dir string, args []string) (*catalog.Plan, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("no command")
	}
	plan, ok := planners[args[0]]
	if !ok {
		if _, known := commands[args[0]]; known {
			return nil, fmt.Errorf("command %s cannot build a fixture", args[0])
		}
		return nil, fmt.Errorf("unknown command %q", args[0])
	}
	e := &env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Dir: dir, Getenv: func(string) string { return "" }}
	args, inserted := catalogArgs(args)
	p, err := plan(e, args[1:])
	if err != nil {
		return nil, err
	}
	p.Output += 1 - inserted // the command's own arguments start at 1, in the line as the manifest writes it
	return p, nil
}

// Run implements catalog.Runner. The commands run to the end: they do
// not stop early when ctx is done.
func (runner) Run(ctx context.Context, c *catalog.Command) error {
	e := &env{Stdin: strings.NewReader(""), Stdout: c.Stdout, Stderr: c.Stderr, Dir: c.Dir, Getenv: c.Getenv, progress: c.Progress}
	args, _ := catalogArgs(c.Args)
	return run(e, args)
}

// planMakefs plans a makefs command line with parseMakefsArgs: the image
// is the output; the inputs are the source directories, an mtree manifest
// given as the source, the -F spec, the files their contents keywords
// name, -T's file (when it names one), and the files of the type's options
// that name files (msdos -o bootstrap; see typeOptionInputs), -N's databases, and the host's
// when a spec's owner name is looked up in them (no -N). A line whose
// image would hold the checkout's times (no -T, no -o timestamp), or the
// host's numbers for a spec's owner names, is an error unless it asks for
// the host's metadata with --metadata=host: git sets every file's time
// when it checks it out, and keeps no user database.
func planMakefs(e *env, args []string) (*catalog.Plan, error) {
	a, err := parseMakefsArgs(e, args)
	if err != nil {
		return nil, err
	}
	if a.Help {
		return nil, usagef("makefs: -o help prints the type's options and builds no image")
	}
	p := &catalog.Plan{Output: a.ImageArg, Times: a.Timestamp.IsZero()}
	add := func(path string, optional, modTime bool) {
		p.Inputs = append(p.Inputs, catalog.Input{Path: path, Optional: optional, Follow: true, ModTime: modTime})
	}
	if a.Manifest != "" && a.Manifest != "-" {
		add(a.Manifest, false, false)
	}
	for _, d := range a.Dirs {
		add(d, false, false)
	}
	if a.Spec != "" {
		add(a.Spec, false, false)
	}
	if a.UserDB != "" { // -N: the owner databases the spec's names are looked up in
		for _, f := range []string{"master.passwd", "passwd", "group"} {
			add(filepath.Join(a.UserDB, f), true, false)
		}
	}
	if a.TimestampArg != "" {
		add(e.abs(a.TimestampArg), true, true)
	}
	in, err := typeOptionInputs(a, p, add)
	if err != nil {
		return nil, err
	}
	if a.Metadata == fstree.MetadataGit {
		if in.FileTimes {
			return nil, errCheckoutFileTimes
		}
		if p.Times {
			return nil, errCheckoutTimes
		}
		if a.TimestampFromFile {
			return nil, fmt.Errorf("-T %s: %w", a.TimestampArg, errCheckoutTimeFile)
		}
	}
	var owners hostOwners
	if a.UserDB == "" {
		a.HostOwners = owners.note
	}
	if a.Manifest != "" || a.Spec != "" {
		if err := contentsInputs(e, a, add); err != nil {
			return nil, err
		}
	}
	if err := owners.inputs(a, p); err != nil {
		return nil, err
	}
	return p, nil
}

// hostUserDatabases are the files in which the host looks up the owner
// names of a spec without -N: os/user reads them, through the C library's
// name service where cgo is on, directly otherwise.
var hostUserDatabases = []string{"/etc/passwd", "/etc/group"}

// hostOwners collects the owner names that a makefs tree looks up in the
// host's databases (makefs.Command.HostOwners).
type hostOwners struct {
	first string // the first, as the spec writes it: "uname=build"
}

func (h *hostOwners) note(name string, group bool) {
	if h.first != "" {
		return
	}
	h.first = "uname=" + name
	if group {
		h.first = "gname=" + name
	}
}

// inputs adds the host's user databases to p when the tree of a looked up
// an owner name in them: as optional inputs (an absent one counts by its
// absence), and host files that Verify, rebuilding on the same host, reads
// where they lie. Under --metadata=git such a line is an error: the ids
// would be the host's, not what a checkout holds.
func (h *hostOwners) inputs(a *makefs.Command, p *catalog.Plan) error {
	if h.first == "" {
		return nil
	}
	if a.Metadata == fstree.MetadataGit {
		return fmt.Errorf("%s: %w", h.first, errHostOwners)
	}
	for _, f := range hostUserDatabases {
		p.Inputs = append(p.Inputs, catalog.Input{Path: f, Optional: true, Follow: true, Host: true})
	}
	return nil
}

// errHostOwners is the error of planMakefs for a catalogue line whose spec
// names an owner without its number or -N: the number would come from the
// host's user database, which no checkout holds.
var errHostOwners = errors.New("the spec names an owner without its number, which makefs looks up in this host's user and group databases; give uid= or gid= beside it, -N with a folder of passwd and group files in the catalogue, or --metadata=host")

// errCheckoutTimes is the error of planMakefs for a catalogue line whose
// image would hold the times git gives a checkout.
var errCheckoutTimes = errors.New("makefs without -T takes its times from the checkout, which git sets at checkout; give -T (for instance -T 0) or --metadata=host")

// errCheckoutFileTimes is the error of planMakefs for a catalogue line
// whose options keep the files' own times whatever -T says.
var errCheckoutFileTimes = errors.New("-o compat=debian keeps the files' own times whatever -T says, as Debian's makefs does, and git sets them at checkout; give --metadata=host")

// errCheckoutTimeFile is the error of planMakefs for a catalogue line
// whose -T names a file: the image would hold the time git gave that file
// at checkout.
var errCheckoutTimeFile = errors.New("makefs takes the time of this file, which git sets at checkout; give -T a number (for instance -T 0) or --metadata=host")

// errArFileMetadata is the error of planAr for a catalogue line with the
// U modifier.
var errArFileMetadata = errors.New("ar with the U modifier stores the members' owners, modes and times, which a checkout takes from its user, umask and clock; leave out U (ar's default, D, stores 0:0, mode 644 and time 0)")

// typeOptionInputs adds to p what the -o options of a make the image
// depend on, as the -t type's contract says (makefs.Command.OptionInputs):
// the files they name are inputs (added by add), and options that set
// every time make the times no input. An option the type refuses is the
// error the command would give.
func typeOptionInputs(a *makefs.Command, p *catalog.Plan, add func(path string, optional, modTime bool)) (makefs.OptionInputs, error) {
	in, err := a.OptionInputs()
	if err != nil {
		return in, err
	}
	if in.Timestamp {
		p.Times = false
	}
	if in.FileTimes {
		p.Times = true
	}
	for _, f := range in.Files {
		add(f, false, false)
	}
	return in, nil
}

// contentsInputs adds the files that contents keywords of a's manifest or
// spec name: it builds the tree as the command does and keeps the data
// paths outside the directories.
func contentsInputs(e *env, a *makefs.Command, add func(path string, optional, modTime bool)) error {
	t, err := a.Tree(e.Stderr)
	if err != nil {
		return err
	}
	t.Walk(func(_ string, n *fstree.Node) error {
		if n.SourcePath != "" && !under(n.SourcePath, a.Dirs) {
			add(n.SourcePath, false, false)
		}
		return nil
	})
	return nil
}

// under reports whether p lies in one of dirs.
func under(p string, dirs []string) bool {
	for _, d := range dirs {
		if r, err := filepath.Rel(d, p); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// planAr plans an ar command line with parseArArgs: the archive is the
// output, and the files of r and q are the inputs (arcmd.Command.Inputs).
// The U modifier is an error: it stores what a checkout does not keep.
func planAr(e *env, args []string) (*catalog.Plan, error) {
	c, err := parseArArgs(e, args)
	if err != nil {
		return nil, err
	}
	if c.FileMetadata {
		return nil, errArFileMetadata
	}
	p := &catalog.Plan{Output: c.ArchiveArg}
	for _, f := range c.Inputs() {
		p.Inputs = append(p.Inputs, catalog.Input{Path: f, Follow: true})
	}
	return p, nil
}

// planRanlib plans "ranlib archive" with arcmd.ParseRanlib: the first
// archive is the output (ranlib rewrites an existing archive, which a
// catalogue entry builds from nothing, so it fails as ranlib of a missing
// file does).
func planRanlib(e *env, args []string) (*catalog.Plan, error) {
	cmds, err := arcmd.ParseRanlib(args, e.Dir, e.getenv)
	if err != nil {
		return nil, fromArcmd(err)
	}
	return &catalog.Plan{Output: cmds[0].ArchiveArg}, nil
}
