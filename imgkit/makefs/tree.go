package makefs

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/bcache"
	"github.com/fixturegen/fixturegen/imgkit/fstree"
	"github.com/fixturegen/fixturegen/imgkit/internal/nbopen"
)

// TreeOptions returns the tree rules of the command line: the time rule
// (-T, or else SOURCE_DATE_EPOCH from the command's environment as an
// upper bound), --metadata and the -N user databases, or without -N the
// host's, through HostOwners when it is set.
func (c *Command) TreeOptions() (*fstree.Options, error) {
	opts, err := fstree.OptionsFromEnv(c.getenv)
	if err != nil {
		return nil, &rewordedError{msg: "makefs: " + trimPrefix(err, fstree.ErrTimestamp.Error()), err: err}
	}
	opts.Metadata = c.Metadata
	if !c.Timestamp.IsZero() {
		opts.Timestamp, opts.ClampTimes = c.Timestamp, false
	}
	if c.UserDB != "" {
		users, err := readUserDB(c.UserDB, "master.passwd", "passwd")
		if err != nil {
			return nil, err
		}
		groups, err := readUserDB(c.UserDB, "group")
		if err != nil {
			return nil, err
		}
		opts.LookupUser, opts.LookupGroup = users.Lookup, groups.Lookup
	} else if note := c.HostOwners; note != nil {
		opts.LookupUser = func(name string) (uint32, error) {
			note(name, false)
			return fstree.LookupHostOwner(name, false)
		}
		opts.LookupGroup = func(name string) (uint32, error) {
			note(name, true)
			return fstree.LookupHostOwner(name, true)
		}
	}
	return opts, nil
}

// CacheOptions returns the block-cache options every type writes its image
// with: the mode and the noclone word from FIXTUREGEN_CACHE in the
// command's environment, and the command's Progress counter.
func (c *Command) CacheOptions() (*bcache.Options, error) {
	o, err := bcache.ParseOptions(c.getenv(bcache.EnvMode))
	if err != nil {
		return nil, &rewordedError{msg: "makefs: " + bcache.EnvMode + ": " + trimPrefix(err, "bcache"), err: err}
	}
	o.Progress = c.Progress
	return o, nil
}

// Tree builds the source tree as makefs does: the manifest or the first
// directory, with every extra directory merged into it (directories merge;
// any other name present in two sources is an error), then the -F spec
// applied (with -x, what it does not name is left out). The directories'
// owners, modes and hard links follow --metadata before the spec applies;
// a manifest is taken as it says. Times follow -T or SOURCE_DATE_EPOCH. Warnings of the spec reader (duplicates with -D) go
// to warn, which may be nil.
func (c *Command) Tree(warn io.Writer) (*fstree.Tree, error) {
	opts, err := c.TreeOptions()
	if err != nil {
		return nil, err
	}
	return c.tree(opts, warn)
}

// tree builds the source tree as Tree does, with the tree rules opts.
func (c *Command) tree(opts *fstree.Options, warn io.Writer) (*fstree.Tree, error) {
	var t *fstree.Tree
	if c.Manifest != "" {
		var err error
		if t, err = c.manifestTree(opts, warn); err != nil {
			return nil, err
		}
	}
	for _, dir := range c.Dirs {
		d, err := fstree.WalkDir(dir, opts)
		if err != nil {
			return nil, fmt.Errorf("makefs: %v", err)
		}
		if t == nil {
			t = d
			continue
		}
		if err := mergeTree(t.Root, d.Root, dir); err != nil {
			return nil, err
		}
	}
	if c.Spec != "" {
		spec, err := c.readSpec(c.Spec, warn)
		if err != nil {
			return nil, err
		}
		if t, err = fstree.ApplySpec(t, spec, c.Exclude, opts); err != nil {
			return nil, fmt.Errorf("makefs: %v", err)
		}
	}
	return t, nil
}

// manifestTree builds the tree of the mtree manifest given as the source.
// An error at a line of a manifest file says that the file was read as
// an mtree spec, since a user who meant a directory may not know that
// makefs takes a file in its place: "makefs: notes.txt is a file, read
// as an mtree spec: line 1: ...".
func (c *Command) manifestTree(opts *fstree.Options, warn io.Writer) (*fstree.Tree, error) {
	spec, err := c.readSpec(c.Manifest, warn)
	if err == nil {
		var t *fstree.Tree
		if t, err = fstree.ApplySpec(nil, spec, false, opts); err == nil {
			return t, nil
		}
		err = fmt.Errorf("makefs: %w", err)
	}
	var se *fstree.SpecError
	if c.Manifest == "-" || !errors.As(err, &se) {
		return nil, err
	}
	name := c.ManifestArg
	if name == "" {
		name = c.Manifest
	}
	return nil, &rewordedError{msg: fmt.Sprintf("makefs: %s is a file, read as an mtree spec: line %d: %s",
		name, se.Line, strings.TrimPrefix(se.Err.Error(), "fstree: ")), err: err}
}

// readSpec reads an mtree spec file, or c.Stdin for "-".
func (c *Command) readSpec(name string, warn io.Writer) (*fstree.Spec, error) {
	r := c.Stdin
	if name != "-" {
		f, err := nbopen.Read(name) // a named pipe without a writer is refused, not waited on
		if err != nil {
			return nil, fmt.Errorf("makefs: %v", err)
		}
		defer f.Close()
		r = f
	} else if r == nil {
		r = strings.NewReader("")
	}
	if warn == nil {
		warn = io.Discard
	}
	dups := fstree.DuplicatesError
	switch {
	case c.Dups == 1:
		dups = fstree.DuplicatesWarn
	case c.Dups > 1:
		dups = fstree.DuplicatesIgnore
	}
	spec, err := fstree.ReadSpecOptions(r, name, &fstree.SpecOptions{Duplicates: dups, Warn: warn})
	if err != nil {
		return nil, fmt.Errorf("makefs: %w", err)
	}
	spec.Dir = c.Dir
	return spec, nil
}

// mergeTree moves the children of the directory src (from the source
// directory srcDir) into the directory dst, as makefs merges an
// extra-directory: directories present in both merge recursively, keeping
// dst's metadata; any other name present in both is an error. dst's link
// count grows by one for each directory it gains.
func mergeTree(dst, src *fstree.Node, srcDir string) error {
	added := false
	for _, c := range src.Children {
		var old *fstree.Node
		for _, d := range dst.Children {
			if d.Name == c.Name {
				old = d
				break
			}
		}
		switch {
		case old == nil:
			c.Parent = dst
			dst.Children = append(dst.Children, c)
			if c.Type == fstree.TypeDir {
				dst.Nlink++
			}
			added = true
		case old.Type == fstree.TypeDir && c.Type == fstree.TypeDir:
			if err := mergeTree(old, c, srcDir); err != nil {
				return err
			}
		default:
			return fmt.Errorf("makefs: cannot merge %s %q with the %s already there",
				c.Type, filepath.Join(srcDir, filepath.FromSlash(c.Path())), old.Type)
		}
	}
	if added {
		sort.Slice(dst.Children, func(i, j int) bool { return dst.Children[i].Name < dst.Children[j].Name })
	}
	return nil
}

// ImageInSource returns the source directory (one of Dirs) that the image
// file lies in or under, or "" when there is none. makefs walks its
// sources before it writes the image, so such a source packs the image
// that an earlier run left at that path into the new one. Paths are
// compared as given and, where they exist, with symbolic links resolved.
func (c *Command) ImageInSource() string {
	if c.Image == "" {
		return ""
	}
	img := []string{c.Image}
	if d, err := filepath.EvalSymlinks(filepath.Dir(c.Image)); err == nil {
		img = append(img, filepath.Join(d, filepath.Base(c.Image)))
	}
	for _, dir := range c.Dirs {
		dirs := []string{dir}
		if d, err := filepath.EvalSymlinks(dir); err == nil {
			dirs = append(dirs, d)
		}
		for _, d := range dirs {
			for _, p := range img {
				if r, err := filepath.Rel(d, p); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && r != "." {
					return dir
				}
			}
		}
	}
	return ""
}
