package fstree

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// ApplySpec merges spec into t as makefs -F merges a specification into its
// source directory, or builds the tree from the spec alone when t is nil,
// and returns the tree (t itself, modified, when t is not nil).
//
// For each entry of the spec:
//   - An entry the tree has keeps its contents and takes the spec's
//     keywords: mode, uid, gid, uname, gname, flags, time, device, link (for
//     a symbolic link), contents (the file's data then comes from that host
//     path). Its type must match the spec's type, if given. A size keyword
//     must match the file's size, since the data is not changed.
//   - An entry the tree lacks is skipped if it is optional; otherwise it is
//     created, and then it needs type, mode, uid or uname, gid or gname, a
//     link for a symbolic link and a device for a device. A regular file so
//     created reads from its contents path if given, else as size zero
//     bytes (size 0 if not given).
//   - A uname without a uid (gname without gid) is looked up with
//     Options.LookupUser (LookupGroup), by default in the host's user
//     database as makefs does; give uid and gid for specs whose result must
//     not depend on the host.
//   - An entry with the ignore keyword is not descended into; with exclude,
//     what lies under it is kept. The nochange keyword has no effect.
//
// With exclude (makefs -x), nodes the spec does not name are removed.
// Hard-link groups and times are then recomputed as WalkDir computes them.
// Every error names the spec file and line ("spec.mtree:12: ...").
func ApplySpec(t *Tree, spec *Spec, exclude bool, opts *Options) (*Tree, error) {
	if spec == nil || spec.root == nil {
		return nil, errors.New("fstree: ApplySpec: nil spec")
	}
	a := &applier{spec: spec, opts: opts, exclude: exclude, now: opts.defaultTime()}
	if t == nil {
		t = &Tree{Root: a.newNode(".", TypeDir)}
	}
	if t.Root.Type != TypeDir {
		return nil, errors.New("fstree: ApplySpec: root is not a directory")
	}
	if err := a.entry(t.Root, spec.root); err != nil {
		return nil, err
	}
	if err := a.dir(t.Root, spec.root); err != nil {
		return nil, err
	}
	linkHardLinks(t)
	opts.normalize(t)
	return t, nil
}

// applier holds the state of ApplySpec.
type applier struct {
	spec    *Spec
	opts    *Options
	exclude bool
	now     time.Time // the time of created nodes without a time keyword
}

func (a *applier) errorf(s *specNode, sentinel error, format string, args ...any) error {
	return &SpecError{File: a.spec.Name, Line: s.line, Err: fmt.Errorf("%w: %s: "+format, append([]any{sentinel, s.path()}, args...)...)}
}

func (a *applier) newNode(name string, typ Type) *Node {
	return &Node{Name: name, Type: typ, Atime: a.now, Mtime: a.now, Ctime: a.now, Birthtime: a.now}
}

// dir merges the children of spec directory s into directory d.
func (a *applier) dir(d *Node, s *specNode) error {
	for _, sc := range s.children {
		k := &sc.keys
		n := d.child(sc.name)
		if n == nil {
			if k.set&kOptional != 0 {
				continue
			}
			if k.set&kType == 0 {
				return a.errorf(sc, ErrSpecMissing, "not in the source tree and no type given")
			}
			if err := a.check(sc); err != nil {
				return err
			}
			n = a.newNode(sc.name, k.typ)
			d.addChild(n)
		}
		if err := a.entry(n, sc); err != nil {
			return err
		}
		if n.Type == TypeDir && k.set&kIgnore == 0 {
			if err := a.dir(n, sc); err != nil {
				return err
			}
		} else if len(sc.children) > 0 && n.Type != TypeDir {
			return a.errorf(sc.children[0], ErrTypeConflict, "parent is a %v, not a directory", n.Type)
		}
	}
	if a.exclude {
		kept := d.Children[:0]
		for _, c := range d.Children {
			if s.byName[c.Name] != nil {
				kept = append(kept, c)
			}
		}
		clear(d.Children[len(kept):])
		d.Children = kept
	}
	return nil
}

// check reports a keyword missing for a node the spec creates.
func (a *applier) check(s *specNode) error {
	k := &s.keys
	var missing string
	switch {
	case k.set&kMode == 0:
		missing = "mode"
	case k.set&(kUID|kUname) == 0:
		missing = "uid or uname"
	case k.set&(kGID|kGname) == 0:
		missing = "gid or gname"
	case k.typ == TypeSymlink && k.set&kLink == 0:
		missing = "link"
	case (k.typ == TypeChar || k.typ == TypeBlock) && k.set&kDevice == 0:
		missing = "device"
	default:
		return nil
	}
	return a.errorf(s, ErrSpecMissing, "not in the source tree and no %s given", missing)
}

// entry applies the keywords of s to n.
func (a *applier) entry(n *Node, s *specNode) error {
	k := &s.keys
	if k.set&kType != 0 && k.typ != n.Type {
		return a.errorf(s, ErrTypeConflict, "spec says type=%v, source is a %v", k.typ, n.Type)
	}
	if k.set&kMode != 0 {
		n.Mode = k.mode
	}
	if err := a.owner(n, s); err != nil {
		return err
	}
	if k.set&kFlags != 0 {
		n.Flags = k.flags
	}
	if k.set&kTime != 0 {
		n.Atime, n.Mtime, n.Ctime, n.Birthtime = k.time, k.time, k.time, k.time
	}
	switch n.Type {
	case TypeSymlink:
		if k.set&kLink != 0 {
			n.Link = k.link
			n.Size = int64(len(k.link))
		}
	case TypeChar, TypeBlock:
		if k.set&kDevice != 0 {
			n.Rdev = k.rdev
		}
	case TypeFile:
		return a.fileData(n, s)
	}
	return nil
}

// owner applies the uname, uid, gname and gid keywords of s to n; a name
// without its number is looked up.
func (a *applier) owner(n *Node, s *specNode) error {
	k := &s.keys
	if k.set&kUname != 0 {
		n.Uname = k.uname
		if k.set&kUID == 0 {
			id, err := a.lookup(k.uname, false)
			if err != nil {
				return a.errorf(s, ErrSpecValue, "uname=%s: %v", k.uname, err)
			}
			n.UID = id
		}
	}
	if k.set&kUID != 0 {
		n.UID = k.uid
	}
	if k.set&kGname != 0 {
		n.Gname = k.gname
		if k.set&kGID == 0 {
			id, err := a.lookup(k.gname, true)
			if err != nil {
				return a.errorf(s, ErrSpecValue, "gname=%s: %v", k.gname, err)
			}
			n.GID = id
		}
	}
	if k.set&kGID != 0 {
		n.GID = k.gid
	}
	return nil
}

// fileData applies the contents and size keywords of s to the file n:
// contents names the host file its data comes from (relative to the
// spec's folder), and size must then match it.
func (a *applier) fileData(n *Node, s *specNode) error {
	k := &s.keys
	if k.set&kContents != 0 {
		p := k.contents
		if !filepath.IsAbs(p) && a.spec.Dir != "" {
			p = filepath.Join(a.spec.Dir, p)
		}
		fi, err := os.Stat(p)
		if err != nil {
			return a.errorf(s, ErrSpecValue, "contents: %v", err)
		}
		if !fi.Mode().IsRegular() {
			return a.errorf(s, ErrSpecValue, "contents: %s is not a regular file", p)
		}
		n.SourcePath, n.fsys, n.fsPath = p, nil, ""
		n.Size = fi.Size()
		n.ino = 0 // new data: no longer one of a hard-link group
	}
	hasData := n.SourcePath != "" || n.fsys != nil
	if k.set&kSize != 0 {
		if hasData && k.size != n.Size {
			return a.errorf(s, ErrSpecValue, "size=%d but the file has %d bytes", k.size, n.Size)
		}
		n.Size = k.size
	}
	return nil
}

// lookup maps a user or group name to its number.
func (a *applier) lookup(name string, group bool) (uint32, error) {
	if a.opts != nil {
		if f := a.opts.LookupUser; !group && f != nil {
			return f(name)
		}
		if f := a.opts.LookupGroup; group && f != nil {
			return f(name)
		}
	}
	return LookupHostOwner(name, group)
}

// LookupHostOwner returns the number of the user name, or with group of
// the group name, in the host's /etc/passwd or /etc/group (HostUsers,
// HostGroups), as ApplySpec does without Options.LookupUser and
// LookupGroup.
func LookupHostOwner(name string, group bool) (uint32, error) {
	if group {
		return HostGroups().Lookup(name)
	}
	return HostUsers().Lookup(name)
}
