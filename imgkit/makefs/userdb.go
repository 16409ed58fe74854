package makefs

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// makefs -N userdb-dir: the owners an mtree spec names by uname and gname
// are looked up in the text databases of userdb-dir instead of the host's:
// master.passwd (FreeBSD's, name:password:uid:gid:class:change:expire:
// gecos:home:shell; passwd(5)'s seven fields are read the same way when
// there is no master.passwd) and group (name:password:gid:members), as
// makefs(8) reads them.

// userDB is a user or group database read from a -N directory.
type userDB struct {
	path string            // the file the names came from, for errors
	ids  map[string]uint32 // name to uid or gid
}

// readUserDB reads the names and ids (the third field) of the first of
// files that exists in dir.
func readUserDB(dir string, files ...string) (*userDB, error) {
	for _, name := range files {
		p := filepath.Join(dir, name)
		f, err := os.Open(p)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("makefs: -N: %w", err)
		}
		defer f.Close()
		db := &userDB{path: p, ids: map[string]uint32{}}
		return db, db.scan(f)
	}
	return nil, fmt.Errorf("makefs: -N %s: no %s", dir, strings.Join(files, " or "))
}

// scan reads the database's lines; blank lines and comments are skipped,
// and the first line for a name wins.
func (db *userDB) scan(f *os.File) error {
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		fields := strings.Split(line, ":")
		if len(fields) < 3 {
			return fmt.Errorf("makefs: -N: %s:%d: want name:password:id and more fields", db.path, n)
		}
		id, err := strconv.ParseUint(fields[2], 10, 32)
		if err != nil {
			return fmt.Errorf("makefs: -N: %s:%d: bad id %q", db.path, n, fields[2])
		}
		if _, dup := db.ids[fields[0]]; !dup {
			db.ids[fields[0]] = uint32(id)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("makefs: -N: %s: %w", db.path, err)
	}
	return nil
}

// lookup returns the id of name.
func (db *userDB) lookup(name string) (uint32, error) {
	id, ok := db.ids[name]
	if !ok {
		return 0, fmt.Errorf("%q is not in %s", name, db.path)
	}
	return id, nil
}
