package ext

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// steadyStep makes the calls of copying one steady block b of inode ino
// after block b-1, one by one: the flush of b-1, then its allocation's
// (steadyCalls).
func steadyStep(m *ioModel, ino uint32, b uint64) {
	m.w(b - 1)
	m.steadyCalls(b, ino)
}

// TestSteadyCalls checks that the calls steadyCalls makes, captured, are
// the ones copyWrites.steady recognises a captured steady block by
// (steadyOps), with the block and the inode.
func TestSteadyCalls(t *testing.T) {
	t.Parallel()
	var ops []ioOp
	m := &ioModel{capture: &ops}
	m.steadyCalls(77, 12)
	if len(ops) != len(steadyOps) {
		t.Fatalf("%d calls, want %d", len(ops), len(steadyOps))
	}
	for k, op := range ops {
		want := uint64(12)
		if k == 0 {
			want = 77
		}
		if op.kind != steadyOps[k] || op.v != want {
			t.Errorf("call %d: %c %d, want %c %d", k, op.kind, op.v, steadyOps[k], want)
		}
	}
}

// cacheState is what of an ioSim decides its future counts: each slot's
// block and dirtiness, by age, and the bytes written.
func cacheState(s *ioSim) (written int64, slots []ioSlot) {
	for _, c := range s.slots {
		if c.inUse {
			slots = append(slots, c)
		}
	}
	slices.SortFunc(slots, func(a, b ioSlot) int { return cmp.Compare(a.access, b.access) })
	for i := range slots {
		slots[i].access = 0
	}
	return s.written, slots
}

// TestSkipSteady checks ioModel.skipSteady against the calls it stands
// for, made one by one, from random states: where it takes the run, the
// cache is left as the calls leave it (the same blocks, dirtiness and
// order, the same bytes written), and random calls after it count the
// same; where it declines, it changed nothing. The states include those
// of a file's copy a few blocks in, where it must take the run.
func TestSkipSteady(t *testing.T) {
	t.Parallel()
	f := &fsys{g: &mkGeometry{bs: 1024, ipg: 64, inodeSize: 256}, itLoc: []uint64{100, 300}}
	rng := rand.New(rand.NewPCG(1, 2))
	taken := 0
	for round := range 4000 {
		m := newIOModel(f)
		ino := uint32(1 + rng.IntN(128))
		// a history: random calls, then some steady blocks of ino
		for range rng.IntN(12) {
			switch b := uint64(1000 + rng.IntN(24)); rng.IntN(4) {
			case 0:
				m.r(b)
			case 1:
				m.w(b)
			case 2:
				m.ri(uint32(1 + rng.IntN(128)))
			default:
				m.wiFull(uint32(1 + rng.IntN(128)))
			}
		}
		m.ri(ino)
		last := uint64(1000 + rng.IntN(24))
		m.w(last)
		for range rng.IntN(10) {
			last++
			steadyStep(m, ino, last)
		}
		n := 1 + rng.IntN(40)
		fast, slow := *m, *m
		before := fast
		took := fast.skipSteady(ino, last, n)
		for k := range uint64(n) {
			steadyStep(&slow, ino, last+1+k)
		}
		if !took {
			if fast != before {
				t.Fatalf("round %d: declined, but the model changed", round)
			}
			continue
		}
		taken++
		fw, fs := cacheState(&fast.sim)
		sw, ss := cacheState(&slow.sim)
		if fw != sw || !slices.Equal(fs, ss) {
			t.Fatalf("round %d: %d blocks after %d: skipped to %d %v, made one by one %d %v", round, n, last, fw, fs, sw, ss)
		}
		for range 30 {
			b := uint64(1000 + rng.IntN(80))
			for _, mm := range []*ioModel{&fast, &slow} {
				mm.w(b)
				mm.r(b + 7)
			}
		}
		fast.sim.flush(false)
		slow.sim.flush(false)
		if fast.sim.written != slow.sim.written {
			t.Fatalf("round %d: after more calls, %d bytes written, want %d", round, fast.sim.written, slow.sim.written)
		}
	}
	if taken < 1000 {
		t.Fatalf("the run was taken %d times of 4000: the steady state is not found", taken)
	}
	t.Logf("taken %d times of 4000", taken)
}
