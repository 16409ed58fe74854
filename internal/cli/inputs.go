package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/fixturegen/fixturegen/catalog"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/makefs"
	"github.com/fixturegen/fixturegen/imgkit/msdos"
)

// Runner returns the catalogue runner of the fixturegen command: it runs
// the manifest's command lines (makefs, ar, ranlib) in-process, as
// "fixturegen build" does, and plans their inputs with the commands' own
// argument parsers. magefixtures and fixturetest use it.
func Runner() catalog.Runner { return runner{} }

type runner struct{}

// planners say, per command, which arguments of a command line name the
// output and the files it reads. Tests add their hidden commands.
var planners = map[string]func(e *env, args []string) (*catalog.Plan, error){
	"makefs": planMakefs,
	"ar":     planAr,
	"ranlib": planRanlib,
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
	p, err := plan(e, args[1:])
	if err != nil {
		return nil, err
	}
	p.Output++ // the command's own arguments start at 1
	return p, nil
}

// Run implements catalog.Runner. The commands run to the end: they do
// not stop early when ctx is done.
func (runner) Run(ctx context.Context, c *catalog.Command) error {
	e := &env{Stdin: strings.NewReader(""), Stdout: c.Stdout, Stderr: c.Stderr, Dir: c.Dir, Getenv: c.Getenv, progress: c.Progress}
	return run(e, c.Args)
}

// planMakefs plans a makefs command line with parseMakefsArgs: the image
// is the output; the inputs are the source directories, an mtree manifest
// given as the source, the -F spec, the files their contents keywords
// name, -T's file (when it names one), and the files of the type's options
// that name files (msdos -o bootstrap).
func planMakefs(e *env, args []string) (*catalog.Plan, error) {
	opts, rest, err := getopt("makefs", args, makefs.OptString)
	if err != nil {
		return nil, err
	}
	a, err := parseMakefsArgs(e, args)
	if err != nil {
		return nil, err
	}
	if a.Help {
		return nil, usagef("makefs: -o help prints the type's options and builds no image")
	}
	p := &catalog.Plan{Output: len(args) - len(rest), Times: a.Timestamp.IsZero()}
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
	for _, o := range opts {
		if o.Name == 'T' {
			add(e.abs(o.Arg), true, true)
		}
	}
	typeOptionInputs(e, a, p, add)
	if a.Manifest != "" || a.Spec != "" {
		if err := contentsInputs(e, a, add); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// typeOptionInputs applies the -o options of a whose -t type ties them to
// an Options field: a Timestamp makes the times no input of p; a
// Bootstrap, an El Torito boot image ("system;file") or a generic boot
// image names a file that is one (added by add).
func typeOptionInputs(e *env, a *makefs.Command, p *catalog.Plan, add func(path string, optional, modTime bool)) {
	t, ok := makefs.Lookup(a.Type)
	if !ok || t.Help == nil {
		return
	}
	fields := map[string]string{}
	for _, h := range t.Help() {
		fields[h.Key] = h.Field
		if h.Letter != "" {
			fields[h.Letter] = h.Field
		}
	}
	for _, o := range a.Opts {
		switch fields[o.Key] {
		case "Timestamp":
			p.Times = false
		case "Bootstrap":
			if o.Value != "" {
				add(bootstrapPath(e, o.Value), false, false)
			}
		case "Boot.Images":
			if _, file, ok := strings.Cut(o.Value, ";"); ok && file != "" {
				add(e.abs(file), false, false)
			}
		case "Boot.GenericImage":
			if o.Value != "" {
				add(e.abs(o.Value), false, false)
			}
		}
	}
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

// bootstrapPath resolves a bootstrap file as makefs -t msdos does: a path
// from the working directory, a bare name in /boot (msdos.BootstrapPath).
func bootstrapPath(e *env, v string) string {
	if strings.Contains(v, "/") {
		return e.abs(v)
	}
	return msdos.BootstrapPath(v)
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
// output, and the files of r and q are the inputs (their dates, owners and
// modes count with U).
func planAr(e *env, args []string) (*catalog.Plan, error) {
	c, err := parseArArgs(e, args)
	if err != nil {
		return nil, err
	}
	p := &catalog.Plan{Output: c.arArchive, Times: !c.det}
	if c.op == 'r' || c.op == 'q' {
		for _, f := range c.files {
			p.Inputs = append(p.Inputs, catalog.Input{Path: e.abs(f), Follow: true})
		}
	}
	return p, nil
}

// planRanlib plans "ranlib archive": the archive is the output (ranlib
// rewrites an existing archive, which a catalogue entry builds from
// nothing, so it fails as ranlib of a missing file does).
func planRanlib(e *env, args []string) (*catalog.Plan, error) {
	for i, a := range args {
		if !strings.HasPrefix(a, "-") {
			return &catalog.Plan{Output: i}, nil
		}
	}
	return nil, usagef("ranlib: missing archive")
}
