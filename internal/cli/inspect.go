package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/fixturegen/fixturegen/imgkit/inspect"
)

// openImage opens the file name for the diff, ls and cat commands.
func openImage(e *env, cmd, name string) (*os.File, int64, error) {
	f, err := os.Open(e.abs(name))
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, 0, fmt.Errorf("%s: %s: %v", cmd, name, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("%s: %v", cmd, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, fmt.Errorf("%s: %s: not a regular file", cmd, name)
	}
	return f, fi.Size(), nil
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
