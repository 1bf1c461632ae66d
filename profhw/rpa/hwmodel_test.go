package rpa

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomStream is n instructions with a profiled one at each with
// probability p, in bursts (the store barrier's pattern) half the time.
func randomStream(n uint64, p float64, seed uint64) []HWEvent {
	r := rand.New(rand.NewPCG(seed, 1))
	var evs []HWEvent
	for i := uint64(0); i < n; i++ {
		q := p
		if (i/1000)%2 == 1 {
			q = 4 * p
		}
		if r.Float64() < q {
			evs = append(evs, HWEvent{Seq: i, Insts: 1})
		}
	}
	return evs
}

// TestHWModelInvariants checks the cost model's invariants on a random
// stream: no stall with unrestricted resources; fewer networks never
// stall less; occupancy never exceeds the limits and its histogram
// starts at 100% and never rises; the cycles add up.
func TestHWModelInvariants(t *testing.T) {
	const n = 200_000
	evs := randomStream(n, 0.05, 7)
	free := PaperHW()
	free.Networks, free.Buffers = 1<<20, 1<<20
	if r := HWModel(free, evs, n); r.StallCycles != 0 || r.Stalls != 0 || r.Cycles != n/free.IPC {
		t.Errorf("unrestricted: %v stall cycles, %d stalls, %v cycles", r.StallCycles, r.Stalls, r.Cycles)
	}
	prev := math.Inf(1)
	for nets := 1; nets <= 4; nets++ {
		cfg := PaperHW()
		cfg.Networks, cfg.Buffers = nets, 8
		r := HWModel(cfg, evs, n)
		if r.StallCycles > prev {
			t.Errorf("%d networks stall %v cycles, more than %d networks' %v", nets, r.StallCycles, nets-1, prev)
		}
		prev = r.StallCycles
		if len(r.NetworksAtLeast) > nets+1 || len(r.BuffersAtLeast) > 9 {
			t.Errorf("%d networks, 8 buffers: occupancy up to %d networks, %d buffers", nets, len(r.NetworksAtLeast)-1, len(r.BuffersAtLeast)-1)
		}
		for _, h := range [][]float64{r.NetworksAtLeast, r.BuffersAtLeast} {
			if math.Abs(h[0]-100) > 1e-9 || !slices.IsSortedFunc(h, func(a, b float64) int { return -cmpF(a, b) }) {
				t.Errorf("histogram %v: not 100%% at 0 or rising", h)
			}
		}
		if math.Abs(r.Cycles-(n/cfg.IPC+r.StallCycles)) > 1e-6 || r.StallPercent() <= 0 || r.SlowdownPercent() < r.StallPercent() {
			t.Errorf("%d networks: cycles %v, stall %v, stall%% %v, slow-down %v", nets, r.Cycles, r.StallCycles, r.StallPercent(), r.SlowdownPercent())
		}
		cheap := cfg
		cheap.Cheap = true
		if rc := HWModel(cheap, evs, n); rc.StallCycles > r.StallCycles || len(rc.NetworksAtLeast) > 1 {
			t.Errorf("%d networks: cheap profiles stall %v > %v, or hold networks %v", nets, rc.StallCycles, r.StallCycles, rc.NetworksAtLeast)
		}
	}
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestHWModelByHand checks small cases worked out by hand.
func TestHWModelByHand(t *testing.T) {
	cfg := HWConfig{Networks: 1, Buffers: 8, QuerySlots: 4, QueryStages: 4, IPC: 1, Flight: 10}
	// Two profiled instructions back to back with one network: the
	// second waits until the first retires, 9 cycles after it would
	// have dispatched.
	r := HWModel(cfg, []HWEvent{{0, 1}, {1, 1}}, 100)
	if r.StallCycles != 9 || r.Stalls != 1 || r.Cycles != 109 {
		t.Errorf("one network: %+v", r)
	}
	// Networks at least 1 in use: [0,10) and [10,20): 20 of 109 cycles.
	if got := r.NetworksAtLeast[1]; math.Abs(got-100*20.0/109) > 1e-9 {
		t.Errorf("network occupancy %v", r.NetworksAtLeast)
	}
	// One buffer: the second waits for the first query to finish:
	// retire at 10, query 4 cycles: free at 14.
	cfg.Networks, cfg.Buffers = 8, 1
	if r := HWModel(cfg, []HWEvent{{0, 1}, {1, 1}}, 100); r.StallCycles != 13 {
		t.Errorf("one buffer: stall %v, want 13", r.StallCycles)
	}
	// Table 6's quantities: 100 instructions, 2 samples.
	if r.InstructionsPerSample() != 50 || r.CyclesPerSample() != 54.5 {
		t.Errorf("per sample: %v instructions, %v cycles", r.InstructionsPerSample(), r.CyclesPerSample())
	}
}
