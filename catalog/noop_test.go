package catalog

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"testing"
	"time"
)

// countingWriter counts the Write calls made to it, empty ones included.
type countingWriter struct{ calls, bytes atomic.Int64 }

func (w *countingWriter) Write(b []byte) (int, error) {
	w.calls.Add(1)
	w.bytes.Add(int64(len(b)))
	return len(b), nil
}

// TestNoopBuildWritesNothing checks that a build that finds every output
// up to date writes nothing: no Write call reaches the TextReporter's
// writers with -q (not even an empty one, which was one write(2) per
// entry), only the summary line without it, and the state file,
// fixtures.sum and the outputs are the files the first build left, with
// their times, which a rewrite or rename would change, and no file is
// added or removed in the catalogue folder.
func TestNoopBuildWritesNothing(t *testing.T) {
	t.Parallel()
	c := newCatalog(t, map[string]string{
		ManifestName: "a.img: write a.img x\nb.img: concat b.img in/f\nc.img: tree c.img in\n",
		"in/f":       "f\n",
	})
	o := &Options{Runner: &fakeRunner{}}
	if _, err := c.Build(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	type stamp struct {
		mtime time.Time
		ino   any
	}
	stamps := func() map[string]stamp {
		m := map[string]stamp{}
		for _, n := range []string{StateName, SumName, "a.img", "b.img", "c.img"} {
			fi, err := os.Lstat(filepath.Join(c.Dir, n))
			if err != nil {
				t.Fatal(err)
			}
			h, _ := hostInfo(fi)
			m[n] = stamp{fi.ModTime(), h}
		}
		return m
	}
	before, files := stamps(), listFiles(t, c.Dir)
	time.Sleep(10 * time.Millisecond) // so that a rewrite would show in the times
	for _, quiet := range []bool{true, false} {
		var stdout, stderr countingWriter
		rep := &TextReporter{Stdout: &stdout, Stderr: &stderr, Quiet: quiet}
		o.Reporter = rep
		res, err := c.Build(context.Background(), o)
		rep.Finish(res, err)
		if err != nil || res.UpToDate != 3 {
			t.Fatalf("quiet %t: %v, %+v; want 3 up to date", quiet, err, res)
		}
		wantOut := int64(0)
		if !quiet {
			wantOut = 1 // the summary line
		}
		if stdout.calls.Load() != wantOut || stderr.calls.Load() != 0 {
			t.Errorf("quiet %t: %d writes to stdout and %d to stderr, want %d and 0", quiet, stdout.calls.Load(), stderr.calls.Load(), wantOut)
		}
	}
	if after := stamps(); !reflect.DeepEqual(after, before) {
		t.Errorf("a no-op build changed the catalogue's files:\n%v\nwant\n%v", after, before)
	}
	if got := listFiles(t, c.Dir); !reflect.DeepEqual(got, files) {
		t.Errorf("the catalogue folder holds %v after a no-op build, want %v", got, files)
	}
}
