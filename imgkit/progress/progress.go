package progress

import (
	"sync/atomic"

	"github.com/fixturegen/fixturegen/internal/progresshook"
)

// A Meter tells which step a piece of work is at and how far that step
// is (see the package documentation). Its zero value is ready: no step,
// nothing counted. Its methods may be called from any goroutine; a nil
// *Meter does nothing and loads as no step.
type Meter struct {
	count atomic.Int64         // every Meter.Add, all steps together
	cur   atomic.Pointer[Step] // the step shown; nil before the first
}

// A Step is one step of a piece of work: its name, its total in bytes (0
// when not known) and the bytes done so far. A nil *Step does nothing.
type Step struct {
	name  string
	total int64
	done  atomic.Int64
}

// NewStep returns the step name of total bytes (0 when the total is not
// known), not shown by any meter yet: work that runs beside the step a
// meter shows, such as a hash computed on another goroutine while a copy
// is counted, counts in it and is shown (Meter.Show) when it is the one
// left.
func NewStep(name string, total int64) *Step {
	return &Step{name: name, total: max(total, 0)}
}

// Add adds n bytes done to the step.
func (s *Step) Add(n int64) {
	if s == nil {
		return
	}
	d := s.done.Add(n)
	progresshook.Added(s.name, d, s.total)
}

// Load returns the step's name, the bytes done and the total (0 when not
// known); a nil *Step loads as "", 0, 0. Done is never negative, nor
// more than a known total: a step that writes some bytes twice stops at
// its total.
func (s *Step) Load() (name string, done, total int64) {
	if s == nil {
		return "", 0, 0
	}
	done = max(s.done.Load(), 0)
	if s.total > 0 {
		done = min(done, s.total)
	}
	return s.name, done, s.total
}

// Step begins the step name of total bytes (0 when not known), shows it
// and returns it: Meter.Add and the step's own Add count it. A nil
// *Meter returns a nil *Step.
func (m *Meter) Step(name string, total int64) *Step {
	if m == nil {
		return nil
	}
	s := NewStep(name, total)
	m.cur.Store(s)
	return s
}

// Show makes s the step the meter shows; a nil s leaves the step shown.
func (m *Meter) Show(s *Step) {
	if m != nil && s != nil {
		m.cur.Store(s)
	}
}

// Add adds n bytes done to the meter's count and to the step it shows.
func (m *Meter) Add(n int64) {
	if m == nil {
		return
	}
	m.count.Add(n)
	m.cur.Load().Add(n)
}

// Count returns the sum of every Meter.Add so far, all steps together
// (not what was added to a Step directly).
func (m *Meter) Count() int64 {
	if m == nil {
		return 0
	}
	return m.count.Load()
}

// Load returns the step shown: its name, the bytes done and the total (0
// when not known), as Step.Load does. Before the first step the name is
// "" and done is Count.
func (m *Meter) Load() (name string, done, total int64) {
	if m == nil {
		return "", 0, 0
	}
	s := m.cur.Load()
	if s == nil {
		return "", m.count.Load(), 0
	}
	return s.Load()
}
