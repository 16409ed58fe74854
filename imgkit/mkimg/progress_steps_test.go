package mkimg

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fixturegen/fixturegen/imgkit/progress"
	"github.com/fixturegen/fixturegen/internal/progresshook"
)

// shownFigure is what a meter showed at one add: its step and figures.
type shownFigure struct {
	name        string
	done, total int64
}

// recordShown sets the progress hook to record, at every add of any
// step, what m shows then, and returns the records and the hook's
// restore. The hook runs on the goroutines doing the work.
func recordShown(m *progress.Meter) (get func() []shownFigure, restore func()) {
	var mu sync.Mutex
	var shown []shownFigure
	restore = progresshook.Set(func(string, int64, int64) {
		name, done, total := m.Load()
		mu.Lock()
		shown = append(shown, shownFigure{name, done, total})
		mu.Unlock()
	})
	return func() []shownFigure {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(shown)
	}, restore
}

// stepsOf returns the names of the steps in shown, each once, in the
// order they were first shown, and checks that no step is shown again
// after another and that each one's figures never go back.
func stepsOf(t *testing.T, what string, shown []shownFigure) []string {
	t.Helper()
	var names []string
	last := map[string]int64{}
	for _, f := range shown {
		if len(names) == 0 || names[len(names)-1] != f.name {
			if slices.Contains(names, f.name) {
				t.Errorf("%s: %q shown again after %q", what, f.name, names[len(names)-1])
			}
			names = append(names, f.name)
		}
		if f.done < last[f.name] {
			t.Errorf("%s: %q went back from %d to %d", what, f.name, last[f.name], f.done)
		}
		last[f.name] = f.done
	}
	return names
}

// midway reports whether shown has a figure of the step name strictly
// between nothing and its total.
func midway(shown []shownFigure, name string) bool {
	return slices.ContainsFunc(shown, func(f shownFigure) bool { return f.name == name && f.done > 0 && f.done < f.total })
}

// TestProgressSteps checks the steps a meter shows while a disk is
// written, in order, each moving forward and several of them seen
// mid-way: a partition read from an io.ReaderAt (copied a piece at a
// time) into a raw disk and into each kind of container (scanned for
// data, compressed for vmdks, then written), and a partition file linked
// into a qcow2 (hashed, as the derived GUIDs need, before the scan). It
// records through the progress hook, which every meter of the process
// calls, so it does not run in parallel.
func TestProgressSteps(t *testing.T) {
	// not parallel: it sets the progress hook every meter sees.
	dir := t.TempDir()
	data := make([]byte, 3<<20+12345)
	for i := range data {
		data[i] = byte(i*13 + i>>11 + 1)
	}
	part := filepath.Join(dir, "part.bin")
	if err := os.WriteFile(part, data, 0o644); err != nil {
		t.Fatal(err)
	}
	const reader = "copying io.ReaderAt source"
	for _, c := range []struct {
		format string
		file   bool
		steps  []string
		mid    []string
	}{
		{"raw", false, []string{reader}, []string{reader}},
		{"qcow2", false, []string{reader, "scanning for data", "writing"}, []string{reader, "scanning for data", "writing"}},
		{"vhd", false, []string{reader, "scanning for data", "writing"}, []string{reader, "writing"}},
		{"vhdf", false, []string{reader, "writing"}, []string{reader}},
		{"vhdx", false, []string{reader, "writing"}, []string{reader, "writing"}},
		{"vmdk", false, []string{reader, "scanning for data", "writing"}, []string{reader, "scanning for data", "writing"}},
		{"vmdks", false, []string{reader, "compressing", "writing"}, []string{reader, "compressing", "writing"}},
		{"qcow2", true, []string{"hashing part.bin", "scanning for data", "writing"}, []string{"hashing part.bin", "scanning for data", "writing"}},
	} {
		what := fmt.Sprintf("-f %s, file %v", c.format, c.file)
		p := Partition{Type: "freebsd-ufs", Source: ReaderSource(bytes.NewReader(data), int64(len(data)))}
		if c.file {
			p = Partition{Type: "freebsd-ufs", File: part}
		}
		var m progress.Meter
		get, restore := recordShown(&m)
		err := WriteFile(filepath.Join(dir, "disk"), &Options{Scheme: "gpt", Format: c.format, Partitions: []Partition{p}, Progress: &m})
		restore()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		shown := get()
		if steps := stepsOf(t, what, shown); !slices.Equal(steps, c.steps) {
			t.Errorf("%s: steps shown %q, want %q", what, steps, c.steps)
		}
		for _, name := range c.mid {
			if !midway(shown, name) {
				t.Errorf("%s: %q never shown mid-way: %v", what, name, shown)
			}
		}
		if name, done, total := m.Load(); name != "renaming into place" || done != 0 || total != 0 {
			t.Errorf("%s: the meter ends at %q, %d, %d; want the commit's rename", what, name, done, total)
		}
	}
}

// TestProgressSpool checks the step of a partition command's output read
// into its spool, of a total not known, counted as it comes.
func TestProgressSpool(t *testing.T) {
	t.Parallel()
	var m progress.Meter
	o := &Options{Scheme: "gpt", Partitions: []Partition{{Type: "efi", Command: "printf abc"}}, Progress: &m}
	l, err := planIn(o, spoolPlace{dir: t.TempDir()}, true)
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	if name, done, total := m.Load(); name != `reading the output of "printf abc"` || done != 3 || total != 0 {
		t.Errorf("after the spool the meter shows %q, %d, %d", name, done, total)
	}
	if !strings.HasPrefix(l.parts[0].meterName(), "the output of") {
		t.Errorf("meterName = %q", l.parts[0].meterName())
	}
}

// TestDigestStep checks when a content digest's step is shown: not while
// the copy beside it runs, from its first bytes after the copy is done;
// at once without a copy; and again from nothing when it starts over.
func TestDigestStep(t *testing.T) {
	t.Parallel()
	var m progress.Meter
	copying := m.Step("copying p", 100)
	d := newContentDigest()
	d.meter(&m, "hashing p", 100, copying)
	check := func(what, name string, done int64) {
		t.Helper()
		if n, got, _ := m.Load(); n != name || got != done {
			t.Errorf("%s: the meter shows %q at %d, want %q at %d", what, n, got, name, done)
		}
	}
	d.Write(make([]byte, 30))
	m.Add(60)
	check("copy running", "copying p", 60)
	m.Add(40)
	check("copy done", "copying p", 100)
	d.Write(make([]byte, 30))
	check("hash after the copy", "hashing p", 60)
	d.Reset()
	check("started over", "hashing p", 0)
	d.Zeros(digestBlock)
	check("zeros", "hashing p", 100)

	var n progress.Meter
	alone := newContentDigest()
	alone.meter(&n, "hashing q", 10, nil)
	alone.Write([]byte{1, 2, 3})
	if name, done, _ := n.Load(); name != "hashing q" || done != 3 {
		t.Errorf("a hash without a copy: the meter shows %q at %d", name, done)
	}
	var none *contentDigest
	none.meter(&n, "x", 1, nil) // a digest not asked for
}
