package cli

import (
	"errors"
	"fmt"
	"github.com/fixturegen/fixturegen/imgkit/imgfmt"
	"io/fs"
	"os"

	"github.com/fixturegen/fixturegen/imgkit/inspect"
)

// openImage opens the file name for the diff, ls and cat commands.
func openImage(e *env, cmd, name string) (*os.File, int64, error) {
	f, size, err := imgfmt.OpenFile(e.abs(name))
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, 0, fmt.Errorf("%s: %s: %v", cmd, name, err)
	}
	return f, size, nil
}

// knownFormats is the list for error messages: "msdos, ar".
func knownFormats() string {
	s := ""
	for i, n := range inspect.Formats() {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}

// openError says why inspect.Open did not open the image name, for the
// command cmd: a file system fixturegen knows only by its signature is
// named as such, not as a file of no known format.
func openError(cmd, name string, err error) error {
	var ue *imgfmt.UnsupportedError
	switch {
	case errors.As(err, &ue):
		return fmt.Errorf("%s: %s: %v (it reads %s)", cmd, name, ue, knownFormats())
	case errors.Is(err, inspect.ErrUnknownFormat):
		return fmt.Errorf("%s: %s: not an image or archive of a known format (%s)", cmd, name, knownFormats())
	}
	return fmt.Errorf("%s: %s: %v", cmd, name, err)
}
