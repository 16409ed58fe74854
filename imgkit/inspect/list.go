package inspect

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
)

// An Item is one line of a listing.
type Item struct {
	Path  string      // slash-separated, relative to the root; directories end in "/"
	Mode  fs.FileMode // type and permission bits
	Size  int64
	Time  string // modification time, UTC, "2006-01-02 15:04:05"
	Extra string // the format's column: FAT short name, ar header offset, FFS inode number, ISO 9660 identifier@extent
}

// List walks fsys and returns one Item per file and directory, in
// fs.WalkDir order (lexical within each directory), without the root.
// column, when not nil, fills in Item.Extra: it is the format's
// imgfmt.Format.Column.
func List(fsys fs.FS, column func(fs.FileInfo) string) ([]Item, error) {
	var items []Item
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == "." {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		it := Item{Path: p, Mode: fi.Mode(), Size: fi.Size(), Time: fi.ModTime().UTC().Format("2006-01-02 15:04:05")}
		if fi.IsDir() {
			it.Path += "/"
			it.Size = 0
		}
		if column != nil {
			it.Extra = column(fi)
		}
		items = append(items, it)
		return nil
	})
	return items, err
}

// WriteList writes items as aligned columns: mode, size, time, the
// format's column (when any item has one) and path.
func WriteList(w io.Writer, items []Item) error {
	sizeW, extraW := 1, 0
	for _, it := range items {
		sizeW = max(sizeW, len(strconv.FormatInt(it.Size, 10)))
		extraW = max(extraW, len(it.Extra))
	}
	var b strings.Builder
	for _, it := range items {
		fmt.Fprintf(&b, "%s %*d %s ", it.Mode, sizeW, it.Size, it.Time)
		if extraW > 0 {
			fmt.Fprintf(&b, "%-*s ", extraW, it.Extra)
		}
		b.WriteString(it.Path)
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ListFile detects the format of the file in r, opens it and writes its
// listing to w.
func ListFile(w io.Writer, r io.ReaderAt, size int64) error {
	fsys, f, err := Open(r, size)
	if err != nil {
		return err
	}
	items, err := List(fsys, f.Column)
	if err != nil {
		return err
	}
	return WriteList(w, items)
}

// Cat copies the regular file name of fsys to w. Its errors are bare (a
// *fs.PathError is unwrapped), for callers that name the image and the file
// themselves; a directory is an error.
func Cat(w io.Writer, fsys fs.FS, name string) error {
	err := cat(w, fsys, name)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return err
}

func cat(w io.Writer, fsys fs.FS, name string) error {
	f, err := fsys.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return errors.New("is a directory")
	}
	_, err = io.Copy(w, f)
	return err
}
