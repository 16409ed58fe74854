package fstree

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
)

// A UserDB is a user or group database in the text form of passwd(5)
// (name:password:uid:gid:gecos:home:shell, and FreeBSD's master.passwd,
// whose fourth field is the gid too) or group(5)
// (name:password:gid:members): names to numbers, numbers to names and,
// for a passwd file, each user's primary group. The first line for a
// name, and the first for a number, win, as getpwnam(3) and getpwuid(3)
// find them.
//
// The host's databases are /etc/passwd and /etc/group, read as files
// (HostUsers, HostGroups): owners that only a name service other than
// files knows (LDAP, NIS, systemd's dynamic users) are not found. That
// is what Go's os/user does without cgo, and it keeps the lookups to
// the two files that a catalogue watches for changes; it also keeps the
// fixturegen binary free of cgo, whose dynamic loading costs every run
// a few milliseconds.
type UserDB struct {
	path  string
	ids   map[string]uint32
	names map[uint32]string
	gids  map[string]uint32 // a passwd file's primary groups
}

// ReadUserDB reads the database at path. A line that is not blank, a
// comment (#) or at least name:password:id with a decimal id is an
// error naming the file and line.
func ReadUserDB(path string) (*UserDB, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseUserDB(f, path, true)
}

// hostUsers and hostGroups are the host's databases, read once.
var (
	hostUsers  = sync.OnceValue(func() *UserDB { return readHostUserDB("/etc/passwd") })
	hostGroups = sync.OnceValue(func() *UserDB { return readHostUserDB("/etc/group") })
)

// HostUsers returns /etc/passwd, read the first time it is asked for:
// empty when the file cannot be read, without the lines it cannot read
// (NIS's + and - lines among them).
func HostUsers() *UserDB { return hostUsers() }

// HostGroups returns /etc/group, read as HostUsers reads /etc/passwd.
func HostGroups() *UserDB { return hostGroups() }

// readHostUserDB reads path leniently, as HostUsers describes.
func readHostUserDB(path string) *UserDB {
	f, err := os.Open(path)
	if err != nil {
		return newUserDB(path)
	}
	defer f.Close()
	db, _ := parseUserDB(f, path, false)
	return db
}

func newUserDB(path string) *UserDB {
	return &UserDB{path: path, ids: map[string]uint32{}, names: map[uint32]string{}, gids: map[string]uint32{}}
}

// parseUserDB reads the lines of r, the database at path. strict makes a
// line it cannot read an error; otherwise the line is skipped, and so is
// one starting with + or -.
func parseUserDB(r io.Reader, path string, strict bool) (*UserDB, error) {
	db := newUserDB(path)
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || line[0] == '#' || !strict && (line[0] == '+' || line[0] == '-') {
			continue
		}
		fields := strings.Split(line, ":")
		if len(fields) < 3 {
			if strict {
				return db, fmt.Errorf("%s:%d: want name:password:id and more fields", path, n)
			}
			continue
		}
		id, err := strconv.ParseUint(fields[2], 10, 32)
		if err != nil {
			if strict {
				return db, fmt.Errorf("%s:%d: bad id %q", path, n, fields[2])
			}
			continue
		}
		name := fields[0]
		if _, dup := db.ids[name]; !dup {
			db.ids[name] = uint32(id)
			if len(fields) >= 7 { // passwd(5) and master.passwd(5)
				if gid, err := strconv.ParseUint(fields[3], 10, 32); err == nil {
					db.gids[name] = uint32(gid)
				}
			}
		}
		if _, dup := db.names[uint32(id)]; !dup {
			db.names[uint32(id)] = name
		}
	}
	if err := sc.Err(); err != nil {
		return db, fmt.Errorf("%s: %w", path, err)
	}
	return db, nil
}

// Path returns the file the database was read from.
func (db *UserDB) Path() string { return db.path }

// ID returns the number of name.
func (db *UserDB) ID(name string) (uint32, bool) {
	id, ok := db.ids[name]
	return id, ok
}

// Lookup returns the number of name, or an error that names the name
// and the file.
func (db *UserDB) Lookup(name string) (uint32, error) {
	id, ok := db.ids[name]
	if !ok {
		return 0, fmt.Errorf("%q is not in %s", name, db.path)
	}
	return id, nil
}

// Name returns the name of id.
func (db *UserDB) Name(id uint32) (string, bool) {
	name, ok := db.names[id]
	return name, ok
}

// PrimaryGroup returns the gid a passwd file gives user name.
func (db *UserDB) PrimaryGroup(name string) (uint32, bool) {
	gid, ok := db.gids[name]
	return gid, ok
}
