package makefs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/fstree"
)

// makefs -N userdb-dir: the owners an mtree spec names by uname and gname
// are looked up in the text databases of userdb-dir instead of the host's:
// master.passwd (FreeBSD's, name:password:uid:gid:class:change:expire:
// gecos:home:shell; passwd(5)'s seven fields are read the same way when
// there is no master.passwd) and group (name:password:gid:members), as
// makefs(8) reads them (fstree.ReadUserDB).

// readUserDB reads the first of files that exists in dir.
func readUserDB(dir string, files ...string) (*fstree.UserDB, error) {
	for _, name := range files {
		db, err := fstree.ReadUserDB(filepath.Join(dir, name))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("makefs: -N: %w", err)
		}
		return db, nil
	}
	return nil, fmt.Errorf("makefs: -N %s: no %s", dir, strings.Join(files, " or "))
}
