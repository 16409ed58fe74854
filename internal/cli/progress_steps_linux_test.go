package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fixturegen/fixturegen/imgkit/progress"
	"github.com/fixturegen/fixturegen/internal/progresshook"
	"github.com/fixturegen/fixturegen/internal/termline"
)

// ptyWatch keeps what is drawn on a pseudo-terminal as it comes, so that
// a test can wait for a redraw while the work waits for the test.
type ptyWatch struct {
	master, slave *os.File
	mu            sync.Mutex
	cond          *sync.Cond
	out           strings.Builder
	closed        bool // the terminal was closed, or waitFor gave up
}

// watchPTY opens a pseudo-terminal, closed at the end of the test, and
// reads its master end from a goroutine; it skips where there are none.
func watchPTY(t *testing.T) *ptyWatch {
	t.Helper()
	master, slave, err := termline.OpenPTY()
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	w := &ptyWatch{master: master, slave: slave}
	w.cond = sync.NewCond(&w.mu)
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			w.mu.Lock()
			w.out.Write(buf[:n])
			w.closed = w.closed || err != nil
			w.cond.Broadcast()
			w.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		slave.Close()
		master.Close()
		<-read
	})
	return w
}

// size returns how many bytes were drawn so far.
func (w *ptyWatch) size() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out.Len()
}

// waitFor waits until a redraw drawn from byte from on satisfies ok, and
// reports whether one did. It gives up (false) when the terminal closes,
// or after a minute, which only a test that waits for a line never drawn
// takes: each wait is for one redraw of a line that redraws every
// millisecond.
func (w *ptyWatch) waitFor(from int, ok func(redraw string) bool) bool {
	guard := time.AfterFunc(time.Minute, func() {
		w.mu.Lock()
		w.closed = true
		w.cond.Broadcast()
		w.mu.Unlock()
	})
	defer guard.Stop()
	w.mu.Lock()
	defer w.mu.Unlock()
	for {
		for _, r := range strings.Split(w.out.String()[from:], "\r\x1b[K") {
			if ok(r) {
				return true
			}
		}
		if w.closed {
			return false
		}
		w.cond.Wait()
	}
}

// drawn returns everything drawn so far, by writing a marker to the
// slave end and waiting for it.
func (w *ptyWatch) drawn(t *testing.T) string {
	t.Helper()
	const end = "END-OF-TERMINAL-OUTPUT"
	if _, err := w.slave.WriteString(end); err != nil {
		t.Fatal(err)
	}
	if !w.waitFor(0, func(r string) bool { return strings.HasSuffix(r, end) }) {
		t.Fatal("the end marker never came back from the terminal")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.TrimSuffix(w.out.String(), end)
}

// figureRe finds a step's figure in a redraw: "STEP DONE / TOTAL (P%)".
var figureRe = regexp.MustCompile(`: ([a-z][^:·]*?) ([0-9.]+ (?:bytes|KiB|MiB|GiB)) / ([0-9.]+ (?:bytes|KiB|MiB|GiB)) \(([0-9]+)%\)`)

// figure is one step's figure in a redraw.
type figure struct {
	step, done string
	pct        int
}

// figures returns the figures of the redraws in out that start with
// label ("mkimg: disk.img", "building big.img"), in order.
func figures(out, label string) []figure {
	var fs []figure
	for _, r := range strings.Split(out, "\r\x1b[K") {
		if !strings.Contains(r, label+": ") {
			continue
		}
		m := figureRe.FindStringSubmatch(r[strings.Index(r, label+": ")+len(label):])
		if m == nil {
			continue
		}
		pct, _ := strconv.Atoi(m[4])
		fs = append(fs, figure{m[1], m[2], pct})
	}
	return fs
}

// holdFigures sets the progress hook to hold the work at the first adds
// of each step shown (up to three figures a step), until the terminal
// has drawn that step after the add, so that the line shows its figures
// growing, mid-way ones among them, however the machine is loaded. shown
// returns the step a meter shows, or is nil when the step added to is
// always the one shown. Where two steps run at once (mkimg copies a
// partition while it hashes it for the derived GUIDs), the meter shows
// the one that started last: a hold ends when the step it waits for is
// no longer the one shown, for it will not be drawn again until the other
// step, waiting on the hook, moves. The hook is seen by every meter of
// the process: the test must not run in parallel.
func holdFigures(t *testing.T, w *ptyWatch, shown func() (string, int64, int64)) (restore func()) {
	var mu sync.Mutex
	held := map[string][]int64{} // the figures held, by step
	return progresshook.Set(func(name string, done, total int64) {
		if shown != nil {
			name, done, total = shown()
		}
		if total == 0 || done == 0 {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if h := held[name]; len(h) == 3 || slices.Contains(h, done) {
			return
		}
		held[name] = append(held[name], done)
		from := w.size()
		replaced := func() bool {
			if shown == nil {
				return false
			}
			now, _, _ := shown()
			return now != name
		}
		// A redraw of the step alone is not enough: the line may have
		// read the meter just before this add and drawn after from.
		least := figureBytes(termline.Bytes(done))
		drawn := func(r string) bool {
			m := figureRe.FindStringSubmatch(r)
			return m != nil && m[1] == name && figureBytes(m[2]) >= least
		}
		if !w.waitFor(from, func(r string) bool { return drawn(r) || replaced() }) {
			t.Errorf("%s %s never drawn while held", name, termline.Bytes(done))
		}
	})
}

// figureBytes reads back a figure termline.Bytes drew ("417.0 KiB"),
// to within the tenth it shows.
func figureBytes(s string) float64 {
	num, unit, _ := strings.Cut(s, " ")
	v, _ := strconv.ParseFloat(num, 64)
	switch unit {
	case "KiB":
		v *= 1 << 10
	case "MiB":
		v *= 1 << 20
	case "GiB":
		v *= 1 << 30
	}
	return v
}

// checkFigures checks the figures drawn for label: each step in steps
// drawn, in that order (others may come between), each step's figures
// never going back while it is drawn, at least three different figures
// and one mid-way (more than nothing and less than the total).
func checkFigures(t *testing.T, out, label string, steps ...string) {
	t.Helper()
	fs := figures(out, label)
	distinct := map[figure]bool{}
	mid := false
	next := 0
	for i, f := range fs {
		distinct[f] = true
		mid = mid || f.done != "0 bytes" && f.pct < 100
		if i > 0 && fs[i-1].step == f.step && f.pct < fs[i-1].pct {
			t.Errorf("%s: %s went back from %d%% to %d%%", label, f.step, fs[i-1].pct, f.pct)
		}
		if next < len(steps) && f.step == steps[next] {
			next++
		}
	}
	t.Logf("%s: %v", label, slices.Compact(slices.Clone(fs)))
	if next < len(steps) || len(distinct) < 3 || !mid {
		t.Errorf("%s: drew %v; want the steps %q in order, at least three different figures and one mid-way\nterminal: %q", label, fs, steps, out)
	}
}

// patternFile writes n bytes of a pattern with no zero byte to path.
func patternFile(t *testing.T, path string, n int) {
	t.Helper()
	b := bytes.Repeat([]byte("fixturegen progress "), n/20+1)[:n]
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// setLineTimes draws the output line at once and every millisecond for
// the test, and puts the package's times back at its end.
func setLineTimes(t *testing.T) {
	delay, interval := outputProgressDelay, outputProgressInterval
	outputProgressDelay, outputProgressInterval = 0, time.Millisecond
	t.Cleanup(func() { outputProgressDelay, outputProgressInterval = delay, interval })
}

// TestProgressMoves runs mkimg (a raw disk and a qcow2) and makefs on a
// terminal, holding the work at a few adds mid-way through each step
// until the line has drawn it: the line names each step, and its figures
// grow, mid-way ones among them. The partition (34 MiB) is copied by the
// kernel in pieces of at most 32 MiB, hashed and scanned a MiB or a
// cluster at a time. It sets the package's line times and the progress
// hook, so it does not run in parallel.
func TestProgressMoves(t *testing.T) {
	// not parallel: it sets the line times and the progress hook.
	setLineTimes(t)
	dir := t.TempDir()
	patternFile(t, filepath.Join(dir, "part.img"), 34<<20+4321)
	patternFile(t, filepath.Join(dir, "src", "big"), 6<<20+99)
	for _, c := range []struct {
		args  []string
		label string
		steps []string
	}{
		{[]string{"mkimg", "-s", "gpt", "-p", "freebsd-ufs:=part.img", "-o", "disk.img"}, "mkimg: disk.img", []string{"copying part.img"}},
		{[]string{"mkimg", "-s", "gpt", "-f", "qcow2", "-p", "freebsd-ufs:=part.img", "-o", "disk.qcow2"}, "mkimg: disk.qcow2", []string{"hashing part.img", "scanning for data", "writing"}},
		{[]string{"makefs", "-t", "ffs", "-T", "0", "big.img", "src"}, "makefs: big.img", []string{"writing"}},
	} {
		w := watchPTY(t)
		var m progress.Meter
		e := &env{Stdout: io.Discard, Stderr: w.slave, Dir: dir, Getenv: func(string) string { return "" }, progress: &m}
		restore := holdFigures(t, w, m.Load)
		err := run(e, c.args)
		restore()
		if err != nil {
			t.Fatalf("%s: %v", c.args, err)
		}
		checkFigures(t, w.drawn(t), c.label, c.steps...)
	}
}

// TestCatalogProgressMoves builds and verifies a catalogue on a terminal,
// holding its work mid-way as TestProgressMoves does: the build line
// shows the entry's command writing its image, then the output hashed for
// fixtures.sum; verify's line shows the copy of the inputs first, both
// again and then the output in the catalogue folder hashed. It sets the
// progress hook, so it does not run in parallel.
func TestCatalogProgressMoves(t *testing.T) {
	// not parallel: it sets the progress hook every meter sees.
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod":            "module m\n",
		"fixtures/manifest": "big.img: makefs -t ffs -T 0 big.img src\n",
	})
	patternFile(t, filepath.Join(root, "fixtures", "src", "big"), 6<<20+99)
	for _, c := range []struct {
		cmd, label string
		steps      []string
	}{
		{"build", "building big.img", []string{"writing", "hashing big.img"}},
		{"verify", "verifying big.img", []string{"writing", "hashing big.img", "hashing big.img in the catalogue folder"}},
	} {
		w := watchPTY(t)
		e := &env{Stdout: io.Discard, Stderr: w.slave, Dir: root, Getenv: func(string) string { return "" }}
		restore := holdFigures(t, w, nil)
		code := runMain(e, []string{c.cmd})
		restore()
		out := w.drawn(t)
		if code != 0 {
			t.Fatalf("%s: exit %d: %q", c.cmd, code, out)
		}
		checkFigures(t, out, c.label, c.steps...)
		if c.cmd == "verify" {
			checkFigures(t, out, "verifying", "copying the inputs")
		}
	}
}
