// Tests of the cache policies: synthetic windows of prediction activity, cache share and capacity flushes -> the decisions.

package codecache

import "testing"

// TestPolicy drives a Policy with synthetic windows.
func TestPolicy(t *testing.T) {
	p := PolicyOptions{Window: 100, PhaseFactor: 4, PhaseMinBurst: 10, BailShare: 0.5, BailWindows: 3, ThrashWindows: 2}
	type win struct {
		frags, cache uint64 // built and run in the cache during the window
		want         Decision
		full         uint64 // capacity flushes during the window
	}
	for _, tc := range []struct {
		name string
		p    PolicyOptions
		wins []win
	}{
		{"steady", p, []win{{5, 90, KeepGoing, 0}, {5, 90, KeepGoing, 0}, {5, 90, KeepGoing, 0}, {6, 90, KeepGoing, 0}}},
		{"burst after warm-up", p, []win{{5, 90, KeepGoing, 0}, {5, 90, KeepGoing, 0}, {4, 90, KeepGoing, 0}, {40, 90, PhaseFlush, 0}, {40, 90, KeepGoing, 0}}},
		{"burst during warm-up", p, []win{{50, 90, KeepGoing, 0}, {50, 90, KeepGoing, 0}}},
		{"small burst", p, []win{{1, 90, KeepGoing, 0}, {1, 90, KeepGoing, 0}, {1, 90, KeepGoing, 0}, {9, 90, KeepGoing, 0}}},
		{"no reuse", p, []win{{5, 10, KeepGoing, 0}, {5, 10, KeepGoing, 0}, {5, 10, KeepGoing, 0}, {5, 10, BailOut, 0}}},
		{"reuse recovers", p, []win{{5, 10, KeepGoing, 0}, {5, 10, KeepGoing, 0}, {5, 90, KeepGoing, 0}, {5, 10, KeepGoing, 0}, {5, 10, KeepGoing, 0}}},
		{"no bail-out", PolicyOptions{Window: 100, NoBailout: true}, []win{{5, 10, KeepGoing, 0}, {5, 10, KeepGoing, 0}, {5, 10, KeepGoing, 0}, {5, 10, KeepGoing, 0}, {5, 10, KeepGoing, 0}}},
		{"no phase flush", PolicyOptions{Window: 100, NoPhaseFlush: true}, []win{{5, 90, KeepGoing, 0}, {5, 90, KeepGoing, 0}, {5, 90, KeepGoing, 0}, {80, 90, KeepGoing, 0}}},
		{"thrash", p, []win{{5, 90, KeepGoing, 1}, {5, 90, KeepGoing, 0}, {5, 90, KeepGoing, 2}, {5, 90, BailOut, 1}}},
		{"thrash, no bail-out", PolicyOptions{Window: 100, NoBailout: true, ThrashWindows: 2}, []win{{5, 90, KeepGoing, 1}, {5, 90, KeepGoing, 1}, {5, 90, KeepGoing, 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pol := NewPolicy(tc.p)
			var retired, frags, cache, full uint64
			for i, w := range tc.wins {
				retired += 100
				frags += w.frags
				cache += w.cache
				full += w.full
				if got := pol.Tick(retired-1, frags, cache, full); got != KeepGoing {
					t.Fatalf("window %d decided %v before it closed", i, got)
				}
				if got := pol.Tick(retired, frags, cache, full); got != w.want {
					t.Fatalf("window %d: decision %v, want %v", i, got, w.want)
				}
			}
		})
	}
}

// TestPolicyThrashFlushes: a window with ThrashFlushes capacity flushes
// bails out at once, before it closes; one flush fewer does not.
func TestPolicyThrashFlushes(t *testing.T) {
	p := NewPolicy(PolicyOptions{Window: 1000, ThrashFlushes: 8})
	if got := p.Tick(10, 50, 5, 7); got != KeepGoing {
		t.Fatalf("7 flushes: %v", got)
	}
	if got := p.Tick(20, 60, 6, 8); got != BailOut {
		t.Fatalf("8 flushes within the window: %v, want BailOut", got)
	}
	q := NewPolicy(PolicyOptions{Window: 1000, ThrashFlushes: 8, NoBailout: true})
	if got := q.Tick(20, 60, 6, 100); got != KeepGoing {
		t.Fatalf("NoBailout: %v", got)
	}
}

// TestPolicyRegret: a phase flush of which a quarter or more came back
// doubles the burst the next phase change needs; one of which less came
// back changes nothing.
func TestPolicyRegret(t *testing.T) {
	for _, tc := range []struct {
		removed, rebuilt int
		burst            uint64
		want             Decision
	}{
		{100, 10, 15, PhaseFlush}, // a burst of 15 > 10 is still a phase change
		{100, 25, 15, KeepGoing},  // the burst must now be 20
		{100, 25, 25, PhaseFlush},
		{0, 0, 15, PhaseFlush},
	} {
		pol := NewPolicy(PolicyOptions{Window: 100, PhaseFactor: 4, PhaseMinBurst: 10, NoBailout: true})
		var frags uint64
		for w := uint64(1); w <= 3; w++ {
			frags++
			pol.Tick(100*w, frags, 90*w, 0)
		}
		pol.Regret(tc.removed, tc.rebuilt)
		if got := pol.Tick(400, frags+tc.burst, 360, 0); got != tc.want {
			t.Errorf("after Regret(%d, %d), a burst of %d: %v, want %v", tc.removed, tc.rebuilt, tc.burst, got, tc.want)
		}
		if want := tc.removed > 0 && 4*tc.rebuilt >= tc.removed; (pol.Backoffs() == 1) != want {
			t.Errorf("Regret(%d, %d): %d back-offs", tc.removed, tc.rebuilt, pol.Backoffs())
		}
	}
}

func TestPolicyDefaults(t *testing.T) {
	if got, want := (PolicyOptions{}).withDefaults(), DefaultPolicy(); got != want {
		t.Errorf("zero options: %+v, want %+v", got, want)
	}
	o := PolicyOptions{NoBailout: true, Window: 7, BailShare: 0.25}
	if got := o.withDefaults(); got.Window != 7 || got.BailShare != 0.25 || !got.NoBailout || got.PhaseFactor != DefaultPolicy().PhaseFactor {
		t.Errorf("set fields must stay: %+v", got)
	}
	for d, want := range map[Decision]string{KeepGoing: "keep going", PhaseFlush: "phase flush", BailOut: "bail out", 9: "Decision(9)"} {
		if d.String() != want {
			t.Errorf("Decision(%d).String() = %q", d, d.String())
		}
	}
}

// TestPolicyCut checks the flush after an interval cut: at once for the
// first cut, never for the same count twice, nothing (and no spacing
// used) while the cache is empty, then at least Window/16, doubling,
// between flushes; and never with NoCutFlush.
func TestPolicyCut(t *testing.T) {
	const w = 1 << 20
	p := NewPolicy(PolicyOptions{Window: w})
	steps := []struct {
		retired, cuts uint64
		empty, want   bool
	}{
		{100, 0, false, false},       // no cut yet
		{200, 1, true, false},        // a cut before anything was compiled
		{300, 1, false, false},       // answered already
		{400, 2, false, true},        // the first flush: at once
		{500, 3, false, false},       // within Window/16 of it
		{400 + w/16, 3, false, true}, // the spacing has passed
		{500 + w/16, 4, false, false},
		{399 + w/16 + w/8, 4, false, false}, // the spacing doubled
		{400 + w/16 + w/8, 4, false, true},
	}
	for i, s := range steps {
		if got := p.Cut(s.retired, s.cuts, s.empty); got != s.want {
			t.Errorf("step %d: Cut(%d, %d, %v) = %v, want %v", i, s.retired, s.cuts, s.empty, got, s.want)
		}
	}
	off := NewPolicy(PolicyOptions{Window: w, NoCutFlush: true})
	if off.Cut(1000, 1, false) {
		t.Error("NoCutFlush: Cut flushed")
	}
}
