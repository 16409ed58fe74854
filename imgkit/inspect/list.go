package inspect

import (
	"errors"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/inspect/describe"
)

// An Item is one line of a listing.
type Item struct {
	Path  string      // slash-separated, relative to the root; directories end in "/"
	Mode  fs.FileMode // type and permission bits
	Size  int64
	Time  string // modification time, UTC, "2006-01-02 15:04:05"
	Extra string // the format's column: FAT short name, ar header offset, FFS inode number, ISO 9660 identifier@extent
	// UID and GID are the numeric owner and group the format stores for
	// the file, when HasOwner is set (FFS, ISO 9660 with Rock Ridge, ar
	// members); FAT and plain ISO 9660 store none.
	UID, GID uint32
	HasOwner bool
	Link     string // a symbolic link's target
}

// List walks fsys and returns one Item per file and directory, in
// fs.WalkDir order (lexical within each directory), without the root.
// format, when not nil, is the format fsys was opened as: its Column fills
// in Item.Extra and its Owner Item.UID and Item.GID. Symbolic links' targets
// are read with fs.ReadLink where fsys can read them.
func List(fsys fs.FS, format *describe.Kind) ([]Item, error) {
	return ListUnder(fsys, format, ".")
}

// ListUnder is List for the part of fsys under dir: the files and
// directories below the directory dir, or the file dir itself, with their
// paths relative to fsys's root as List gives them (p1/EFI/BOOT/ for the
// directory BOOT under p1/EFI).
func ListUnder(fsys fs.FS, format *describe.Kind, dir string) ([]Item, error) {
	var column func(fs.FileInfo) string
	var owner func(fs.FileInfo) (uint32, uint32, bool)
	if format != nil {
		column, owner = format.Column, format.Owner
	}
	_, canReadLink := fsys.(fs.ReadLinkFS)
	var items []Item
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir && d.IsDir() {
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
		if owner != nil {
			it.UID, it.GID, it.HasOwner = owner(fi)
		}
		if fi.Mode()&fs.ModeSymlink != 0 && canReadLink {
			if it.Link, err = fs.ReadLink(fsys, p); err != nil {
				return err
			}
		}
		items = append(items, it)
		return nil
	})
	return items, err
}

// WriteList writes items as aligned columns: mode letters (ModeString),
// size, time, the format's column (when any item has one) and path.
func WriteList(w io.Writer, items []Item) error {
	return writeList(w, items, false)
}

// WriteLongList writes items as ls -l and tar tv show them, in aligned
// columns: mode letters (ModeString), numeric owner and group, size, time,
// the format's column (when any item has one), and the path, followed by
// " -> " and the target for a symbolic link. An item the format stores no
// owner for (every file of a FAT image or a plain ISO 9660 image) shows
// "-" as its owner and group, so that a missing owner is not read as root.
func WriteLongList(w io.Writer, items []Item) error {
	return writeList(w, items, true)
}

// writeList writes the listing of WriteList, or of WriteLongList when
// long is set. Columns are aligned by the terminal cells their text takes
// (cellWidth), not by bytes or runes: the format's column holds decoded
// FAT short names and ISO 9660 identifiers, which may hold any character.
func writeList(w io.Writer, items []Item, long bool) error {
	id := func(it Item, v uint32) string {
		if !it.HasOwner {
			return "-"
		}
		return strconv.FormatUint(uint64(v), 10)
	}
	sizeW, extraW, uidW, gidW := 1, 0, 1, 1
	for _, it := range items {
		sizeW = max(sizeW, cellWidth(strconv.FormatInt(it.Size, 10)))
		extraW = max(extraW, cellWidth(it.Extra))
		uidW = max(uidW, cellWidth(id(it, it.UID)))
		gidW = max(gidW, cellWidth(id(it, it.GID)))
	}
	var b strings.Builder
	for _, it := range items {
		b.WriteString(ModeString(it.Mode))
		if long {
			b.WriteString(" " + padLeft(id(it, it.UID), uidW) + " " + padLeft(id(it, it.GID), gidW))
		}
		b.WriteString(" " + padLeft(strconv.FormatInt(it.Size, 10), sizeW) + " " + it.Time + " ")
		if extraW > 0 {
			b.WriteString(padRight(it.Extra, extraW) + " ")
		}
		b.WriteString(it.Path)
		if long && it.Mode&fs.ModeSymlink != 0 && it.Link != "" {
			b.WriteString(" -> ")
			b.WriteString(it.Link)
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ListFile detects the format of the file in r, opens it and writes its
// listing to w as WriteList does.
func ListFile(w io.Writer, r io.ReaderAt, size int64) error {
	return listFile(w, r, size, WriteList)
}

// ListFileLong detects the format of the file in r, opens it and writes
// its listing to w as WriteLongList does, with owners and link targets.
func ListFileLong(w io.Writer, r io.ReaderAt, size int64) error {
	return listFile(w, r, size, WriteLongList)
}

// listFile opens the file in r as its format and writes its items with
// write.
func listFile(w io.Writer, r io.ReaderAt, size int64, write func(io.Writer, []Item) error) error {
	fsys, f, err := Open(r, size)
	if err != nil {
		return err
	}
	items, err := List(fsys, f)
	if err != nil {
		return err
	}
	return write(w, items)
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
