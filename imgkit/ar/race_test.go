package ar

import (
	"bytes"
	"io/fs"
	"sync"
	"testing"
)

// TestReaderConcurrent reads one Reader from several goroutines, as an
// io/fs.FS user may; under -race it fails if the lazily built path tree is
// shared without synchronisation.
func TestReaderConcurrent(t *testing.T) {
	t.Parallel()
	a := sample(t, nil, "a.txt", "alpha\n", "b.txt", "beta\n")
	r, err := NewReader(bytes.NewReader(a), int64(len(a)))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, name := range []string{"a.txt", "b.txt", "a.txt", "b.txt"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := fs.ReadFile(r, name); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
}
