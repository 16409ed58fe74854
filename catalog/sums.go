package catalog

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fixturegen/fixturegen/imgkit/progress"
	"github.com/fixturegen/fixturegen/internal/tempfile"
)

// Sum is one line of fixtures.sum: an output's size and SHA-256.
type Sum struct {
	Size int64
	Hash string // "sha256:" and 64 lower-case hex digits
}

// String returns the sum as fixtures.sum spells it: SIZE sha256:HEX.
func (s Sum) String() string { return strconv.FormatInt(s.Size, 10) + " " + s.Hash }

// SumFile returns the size and SHA-256 of a file.
func SumFile(name string) (Sum, error) { return sumFile(name, nil, "") }

// sumFile is SumFile showing on m (nil: nowhere) the step step of the
// file's size, counted a sumPiece at a time.
func sumFile(name string, m *progress.Meter, step string) (Sum, error) {
	f, err := os.Open(name)
	if err != nil {
		return Sum{}, err
	}
	defer f.Close()
	var s *progress.Step
	if m != nil {
		fi, err := f.Stat()
		if err != nil {
			return Sum{}, err
		}
		s = m.Step(step, fi.Size())
	}
	h := sha256.New()
	buf := make([]byte, sumPiece)
	var n int64
	for {
		k, err := f.Read(buf)
		h.Write(buf[:k])
		n += int64(k)
		s.Add(int64(k))
		if err == io.EOF {
			break
		}
		if err != nil {
			return Sum{}, err
		}
	}
	return Sum{Size: n, Hash: "sha256:" + hex.EncodeToString(h.Sum(nil))}, nil
}

// sumPiece is what sumFile reads at a time.
const sumPiece = 1 << 20

// ReadSums reads a fixtures.sum file: one line per output, NAME SIZE
// sha256:HEX separated by blanks, LF or CR LF line endings, a UTF-8
// byte-order mark at the start skipped. A missing file has no entries and
// reports exists false.
func ReadSums(name string) (sums map[string]Sum, exists bool, err error) {
	sums = map[string]Sum{}
	data, err := os.ReadFile(name)
	if errors.Is(err, os.ErrNotExist) {
		return sums, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	text := strings.TrimPrefix(string(data), bom)
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		var s Sum
		var perr error
		if len(f) == 3 {
			s.Size, perr = strconv.ParseInt(f[1], 10, 64)
			s.Hash = f[2]
		}
		hexPart, ok := strings.CutPrefix(s.Hash, "sha256:")
		if len(f) != 3 || perr != nil || s.Size < 0 || !ok || len(hexPart) != 64 || strings.ToLower(hexPart) != hexPart {
			return nil, true, fmt.Errorf("%s:%d: want NAME SIZE sha256:HEX", SumName, i+1)
		}
		if _, err := hex.DecodeString(hexPart); err != nil {
			return nil, true, fmt.Errorf("%s:%d: want NAME SIZE sha256:HEX", SumName, i+1)
		}
		if _, dup := sums[f[0]]; dup {
			return nil, true, fmt.Errorf("%s:%d: %s listed twice", SumName, i+1, f[0])
		}
		sums[f[0]] = s
	}
	return sums, true, nil
}

// WriteSums replaces the file name with sums, one line per output sorted
// by name, through a temporary file renamed into place. A name that
// CheckName refuses is an error wrapping ErrName, and nothing is written:
// ReadSums could not read it back.
func WriteSums(name string, sums map[string]Sum) error {
	data, err := formatSums(sums)
	if err != nil {
		return err
	}
	return writeFileAtomic(name, data, nil)
}

// formatSums returns the contents of a fixtures.sum file holding sums, or
// the error of the first name that CheckName refuses.
func formatSums(sums map[string]Sum) ([]byte, error) {
	var b bytes.Buffer
	for _, n := range sortedKeys(sums) {
		if err := CheckName(n); err != nil {
			return nil, fmt.Errorf("%s: %w", SumName, err)
		}
		fmt.Fprintf(&b, "%s %s\n", n, sums[n])
	}
	return b.Bytes(), nil
}

// writeFileAtomic replaces name with data through a uniquely named
// temporary file in the same folder; t, when not nil, tracks the temporary
// file so that a cancelled run removes it.
func writeFileAtomic(name string, data []byte, t *temps) error {
	f, err := os.CreateTemp(filepath.Dir(name), tempfile.Pattern(name))
	if err != nil {
		return err
	}
	tmp := f.Name()
	t.add(tmp)
	defer t.remove(tmp)
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, name)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
