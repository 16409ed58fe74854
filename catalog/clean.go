package catalog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Clean removes the selected outputs (all when names is empty) and, for a
// full clean, the build state; in either case it removes the temporary
// files that killed runs left beside the outputs and the catalogue's own
// files, and then the outputs' folders that are left empty, which Build
// makes again. fixtures.sum and the inputs stay. An output whose folder is a
// symbolic link (see ErrOutputLink) is an error before anything is
// removed. It holds the catalogue's lock,
// so it waits for a run in progress. It returns how many outputs it
// removed.
func (c *Catalog) Clean(ctx context.Context, names []string) (removed int, err error) {
	sel, err := c.Select(names)
	if err != nil {
		return 0, err
	}
	for _, m := range sel {
		if err := outputFolderLink(c.Dir, m.Name); err != nil {
			return 0, fmt.Errorf("%s:%d: %s: %w; clean removed nothing", ManifestName, m.Line, m.Name, err)
		}
	}
	unlock, err := lock(ctx, c.Dir, nil)
	if err != nil {
		return 0, err
	}
	defer unlock()
	for _, m := range sel {
		p := filepath.Join(c.Dir, filepath.FromSlash(m.Name))
		// What earlier versions left: .NAME.build.tmp.
		os.Remove(filepath.Join(filepath.Dir(p), "."+filepath.Base(p)+".build.tmp"))
		switch err := os.Remove(p); {
		case err == nil:
			removed++
		case !errors.Is(err, os.ErrNotExist):
			return removed, err
		}
	}
	for _, p := range leftoverTemps(c.Dir, sel) {
		if err := os.RemoveAll(p); err != nil {
			return removed, err
		}
	}
	removeEmptyFolders(c.Dir, sel)
	for _, old := range []string{SumName + ".tmp", StateName + ".tmp"} {
		os.Remove(filepath.Join(c.Dir, old))
	}
	if len(names) == 0 {
		if err := os.Remove(filepath.Join(c.Dir, StateName)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return removed, err
		}
	}
	return removed, nil
}
