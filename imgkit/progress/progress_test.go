package progress

import (
	"slices"
	"sync"
	"testing"

	"github.com/fixturegen/fixturegen/internal/progresshook"
)

// TestMeter checks the figures Load gives through a run of steps: before
// the first, a step counted by Meter.Add and by its own Add, one begun
// beside it and shown later, done kept within a known total.
func TestMeter(t *testing.T) {
	t.Parallel()
	var m Meter
	check := func(what, name string, done, total int64) {
		t.Helper()
		if n, d, tot := m.Load(); n != name || d != done || tot != total {
			t.Errorf("%s: Load = %q, %d, %d; want %q, %d, %d", what, n, d, tot, name, done, total)
		}
	}
	check("new", "", 0, 0)
	m.Add(5)
	check("before a step", "", 5, 0)
	w := m.Step("writing", 100)
	check("step begun", "writing", 0, 100)
	m.Add(40)
	w.Add(2)
	check("step counted", "writing", 42, 100)
	m.Add(70)
	check("past the total", "writing", 100, 100)
	h := NewStep("hashing a", 50)
	h.Add(7)
	check("a step beside it", "writing", 100, 100)
	m.Show(h)
	check("shown", "hashing a", 7, 50)
	m.Show(nil)
	check("nil shown", "hashing a", 7, 50)
	s := m.Step("scanning", 0)
	s.Add(3)
	check("unknown total", "scanning", 3, 0)
	m.Step("negative", -4)
	check("negative total", "negative", 0, 0)
	if got, want := m.Count(), int64(5+40+70); got != want {
		t.Errorf("Count = %d, want the sum of Meter.Add %d", got, want)
	}
}

// TestNilMeter checks that a nil *Meter and a nil *Step take every call,
// and that the meter loads as no step.
func TestNilMeter(t *testing.T) {
	t.Parallel()
	var m *Meter
	s := m.Step("writing", 10)
	s.Add(1)
	m.Show(NewStep("hashing", 10))
	m.Add(3)
	if name, done, total := m.Load(); s != nil || name != "" || done != 0 || total != 0 || m.Count() != 0 {
		t.Errorf("nil meter: Step %v, Load = %q, %d, %d, Count %d", s, name, done, total, m.Count())
	}
	if name, done, total := s.Load(); name != "" || done != 0 || total != 0 {
		t.Errorf("nil step: Load = %q, %d, %d", name, done, total)
	}
}

// TestMeterConcurrent adds from several goroutines while another loads
// (for the race detector) and checks the sum.
func TestMeterConcurrent(t *testing.T) {
	t.Parallel()
	var m Meter
	m.Step("copying", 4000)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				m.Add(1)
			}
		}()
	}
	stop := make(chan struct{})
	loaded := make(chan struct{})
	go func() {
		defer close(loaded)
		last := int64(0)
		for {
			select {
			case <-stop:
				return
			default:
			}
			_, done, _ := m.Load()
			if done < last {
				t.Errorf("done went back from %d to %d", last, done)
			}
			last = done
		}
	}()
	wg.Wait()
	close(stop)
	<-loaded
	if _, done, _ := m.Load(); done != 4000 {
		t.Errorf("done = %d, want 4000", done)
	}
}

// TestHook checks that Step.Add calls the hook of internal/progresshook
// with the step's figures, and nothing once it is restored. It sets a
// hook every meter of the process sees, so it does not run in parallel.
func TestHook(t *testing.T) {
	// not parallel: it sets the progress hook every meter sees.
	type call struct {
		name        string
		done, total int64
	}
	var calls []call
	restore := progresshook.Set(func(name string, done, total int64) { calls = append(calls, call{name, done, total}) })
	var m Meter
	m.Step("copying", 10)
	m.Add(4)
	m.Add(4)
	restore()
	m.Add(2)
	if want := []call{{"copying", 4, 10}, {"copying", 8, 10}}; !slices.Equal(calls, want) {
		t.Errorf("the hook saw %v, want %v", calls, want)
	}
}
