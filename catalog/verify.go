package catalog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/fixturegen/fixturegen/imgkit/progress"
	"github.com/fixturegen/fixturegen/internal/tempfile"
)

// verifyCopy checks that the entries of sel read nothing outside the
// catalogue, copies its inputs into a temporary folder and makes that the
// folder the run builds in, with an empty state. A ProgressReporter is
// shown the copy (RunStarted).
func (e *engine) verifyCopy(ctx context.Context, sel []Entry) error {
	if err := e.checkInside(sel); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", tempfile.Pattern("verify"))
	if err != nil {
		return err
	}
	e.temps.add(tmp)
	m := new(progress.Meter)
	e.runStarted(m)
	if err := copyInputs(ctx, e.cat, tmp, m); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("copying the inputs: %v", err)
	}
	if err := writableOutputDirs(tmp, sel); err != nil {
		return fmt.Errorf("copying the inputs: %v", err)
	}
	e.dir = tmp
	e.st = &state{entries: map[string]*stateEntry{}}
	return nil
}

// writableOutputDirs gives the owner write permission on the folder of
// each output in the copy at dir: a catalogue folder that no one may
// write to (installed read-only, a build sandbox's, chmod a-w) is
// verified in a copy that its outputs can be written to. No input reads
// those folders' modes: an input folder never holds an output
// (treeHolds).
func writableOutputDirs(dir string, sel []Entry) error {
	for _, m := range sel {
		out := filepath.Dir(filepath.Join(dir, filepath.FromSlash(m.Name)))
		fi, err := os.Stat(out)
		if err != nil || fi.Mode().Perm()&0o200 != 0 {
			continue // a missing folder is the build's to report
		}
		if err := os.Chmod(out, fi.Mode().Perm()|0o200); err != nil {
			return err
		}
	}
	return nil
}

// checkInside refuses entries that read anything outside the catalogue
// folder, whatever the argument's position, but the host's own files
// (Input.Host), for Verify.
func (e *engine) checkInside(sel []Entry) error {
	for _, m := range sel {
		p, err := e.o.Runner.Plan(e.cat.Dir, m.Args)
		if err != nil {
			continue // the build reports it
		}
		for _, in := range p.Inputs {
			if in.Host {
				continue // the copy is built on this host too
			}
			abs := in.Path
			if !filepath.IsAbs(abs) {
				abs = filepath.Join(e.cat.Dir, abs)
			}
			_, inside := rel(e.cat.Dir, abs)
			if inside {
				// A symbolic link that the command follows must stay
				// inside too.
				if t, err := filepath.EvalSymlinks(abs); err == nil {
					if root, err := filepath.EvalSymlinks(e.cat.Dir); err == nil {
						_, inside = rel(root, t)
					}
				}
			}
			if !inside {
				if in.Optional {
					if _, err := os.Stat(abs); err != nil {
						continue // not read: it does not exist
					}
				}
				return fmt.Errorf("%s:%d: %s: input %s is outside the manifest's folder, which verify copies", ManifestName, m.Line, m.Name, display(e.cat.Dir, abs))
			}
		}
	}
	return nil
}

// checkInstalled compares the output of m in the catalogue folder, when
// there is one, with the sum fixtures.sum records, for Verify: an output
// there that was edited, or left by a build of other inputs, fails the
// entry even though the rebuild matches. An absent output is fine. The
// hash is the step "hashing NAME in the catalogue folder" on meter.
func (e *engine) checkInstalled(m Entry, meter *progress.Meter, fail func(string, ...any)) {
	want, ok := e.sums[m.Name]
	if !ok {
		return
	}
	p := filepath.Join(e.cat.Dir, filepath.FromSlash(m.Name))
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return
	case err != nil:
		fail("the output in the catalogue folder: %v", err)
		return
	case !fi.Mode().IsRegular():
		fail("the output %s in the catalogue folder is not a regular file (%v)", m.Name, fi.Mode().Type())
		return
	}
	switch have, err := sumFile(p, meter, "hashing "+m.Name+" in the catalogue folder"); {
	case err != nil:
		fail("the output in the catalogue folder: %v", err)
	case have != want:
		fail("the output %s in the catalogue folder has %s, not the %s that %s records and the rebuild gives; a build rebuilds it", m.Name, have, want, SumName)
	}
}
