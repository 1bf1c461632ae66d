// Tests of the prediction metrics: hand-made path sequences -> pinned hit rate, noise, MOC and profiled flow for both schemes.

package net

import (
	"math"
	"math/rand/v2"
	"testing"
)

// seqProfile builds a Profile from path heads (heads[p] is path p's head)
// and an execution order, as the Profiler would.
func seqProfile(heads []HeadID, order []PathID) *Profile {
	prof := &Profile{Order: order}
	nh := 0
	for p, h := range heads {
		prof.Paths = append(prof.Paths, Path{Start: 0x1000 * uint64(h+1), Head: h, Sig: [2]uint64{uint64(p)}})
		nh = max(nh, int(h)+1)
	}
	for h := range nh {
		prof.Heads = append(prof.Heads, 0x1000*uint64(h+1))
	}
	for _, p := range order {
		prof.Paths[p].Freq++
		prof.Flow++
	}
	return prof
}

// The sequence of the tests: paths 0 and 1 start at head 0, paths 2 and
// 3 at head 1. freq = 7, 5, 3, 1; flow 16. With hot = 0.2 the threshold
// is 3.2: paths 0 and 1 are hot (hot flow 12).
var (
	seqHeads = []HeadID{0, 0, 1, 1}
	seqOrder = []PathID{0, 0, 0, 1, 0, 0, 1, 1, 1, 1, 2, 3, 2, 2, 0, 0}
)

func TestScoreSequence(t *testing.T) {
	prof := seqProfile(seqHeads, seqOrder)
	a := Replay(prof, []int{0, 2, 3, 5}, 0.2)
	if s := a.Summary; s.Paths != 4 || s.Heads != 2 || s.Flow != 16 || s.HotPaths != 2 || s.HotFlow != 12 || s.HotFlowPct != 75 {
		t.Fatalf("summary %+v", s)
	}
	// Worked by hand; see docs/prediction.md for the NET walk at tau 2.
	for _, tc := range []struct {
		s                          Scheme
		tau                        int
		pred, predHot              int
		hits, noise, moc           uint64
		hitRate, noiseRate, profil float64
		counters                   int
	}{
		// Delay 0: everything is predicted at once, nothing is profiled.
		{SchemePathProfile, 0, 4, 2, 12, 4, 0, 100, 100.0 / 3, 0, 4},
		{SchemeNET, 0, 4, 2, 12, 4, 0, 100, 100.0 / 3, 0, 2},
		// Paper formulas: Hits = (7-2)+(5-2), Noise = 3-2, MOC = 2*2.
		{SchemePathProfile, 2, 3, 2, 8, 1, 4, 200.0 / 3, 100.0 / 12, 43.75, 4},
		// NET: head 0 gets hot at execution 3 (path 0), again at 8
		// (path 1); head 1 at 13 (path 2). Captured 5, 3, 2.
		{SchemeNET, 2, 3, 2, 8, 2, 4, 200.0 / 3, 200.0 / 12, 37.5, 2},
		{SchemePathProfile, 3, 2, 2, 6, 0, 6, 50, 0, 62.5, 4},
		// NET speculates: head 0's 4th execution is path 1, predicted
		// before its own second run; path 0 only at execution 16.
		{SchemeNET, 3, 3, 2, 6, 1, 6, 50, 100.0 / 12, 56.25, 2},
		{SchemePathProfile, 5, 1, 1, 2, 0, 5, 100.0 / 6, 0, 87.5, 4},
		// NET: head 0's 6th execution is path 0: captured 3 (6, 15, 16).
		{SchemeNET, 5, 1, 1, 3, 0, 4, 25, 0, 81.25, 2},
	} {
		r := a.Find(tc.s, tc.tau)
		if r == nil {
			t.Fatalf("%v %d: no result", tc.s, tc.tau)
		}
		if r.Predicted != tc.pred || r.PredictedHot != tc.predHot || r.Hits != tc.hits || r.Noise != tc.noise ||
			r.MOC != tc.moc || !near(r.HitRate, tc.hitRate) || !near(r.NoiseRate, tc.noiseRate) ||
			!near(r.ProfiledFlow, tc.profil) || r.CounterSpace != tc.counters {
			t.Errorf("%v tau %d: got %+v", tc.s, tc.tau, *r)
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestPaperFormulas checks on random sequences that path profile scores
// are exactly section 3's formulas, that the flow splits into hits, noise
// and profiled flow, and that NET never captures more than a path ran.
func TestPaperFormulas(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 50 {
		np := 1 + rng.IntN(30)
		heads := make([]HeadID, np)
		for p := range heads {
			heads[p] = HeadID(rng.IntN(1 + np/3))
		}
		order := make([]PathID, 200+rng.IntN(2000))
		for i := range order {
			// Skewed: low path numbers are hot.
			order[i] = PathID(min(rng.IntN(np), rng.IntN(np)))
		}
		prof := seqProfile(heads, order)
		hot := 0.02
		for _, tau := range []int{0, 1, 7, 50} {
			a := Replay(prof, []int{tau}, hot)
			pp, nt := a.Find(SchemePathProfile, tau), a.Find(SchemeNET, tau)
			var inFreq, outFreq, in, out uint64
			for _, p := range prof.Paths {
				if p.Freq <= uint64(tau) {
					continue
				}
				if float64(p.Freq) > hot*float64(prof.Flow) {
					inFreq, in = inFreq+p.Freq, in+1
				} else {
					outFreq, out = outFreq+p.Freq, out+1
				}
			}
			T := uint64(tau)
			if pp.Hits != inFreq-in*T || pp.Noise != outFreq-out*T || pp.MOC != in*T {
				t.Fatalf("trial %d tau %d: path profile %+v, want hits %d noise %d MOC %d", trial, tau, *pp, inFreq-in*T, outFreq-out*T, in*T)
			}
			for _, r := range []*Result{pp, nt} {
				split := r.ProfiledFlow/100*float64(prof.Flow) + float64(r.Hits+r.Noise)
				if math.Abs(split-float64(prof.Flow)) > 1e-6 {
					t.Fatalf("trial %d: %v flow does not split: %+v", trial, r.Scheme, *r)
				}
			}
			n := NewNETPredictor(tau)
			for _, p := range order {
				n.PathExecuted(p, heads[p])
			}
			for p, c := range n.Captured() {
				if c > prof.Paths[p].Freq {
					t.Fatalf("NET captured %d of path %d, which ran %d times", c, p, prof.Paths[p].Freq)
				}
			}
		}
	}
}

// TestNETMatchesSelector checks that the NET replay predicts exactly when
// the dispatcher's Selector would: a head's uncaptured executions bump
// its counter, and Bump reports hot at the predicting execution.
func TestNETMatchesSelector(t *testing.T) {
	for _, tau := range []int{0, 1, 2, 3, 5} {
		n, c := NewNETPredictor(tau), NewSelector(Options{Delay: DelayOf(tau)})
		for i, p := range seqOrder {
			h := seqHeads[p]
			before := len(n.Captured()) > int(p) && n.Captured()[p] > 0
			n.PathExecuted(p, h)
			if before {
				continue
			}
			want := c.Bump(0x1000 * uint64(h+1))
			if got := n.Captured()[p] > 0; got != want {
				t.Fatalf("tau %d execution %d (path %d): NET predicted %v, Selector.Bump %v", tau, i, p, got, want)
			}
		}
	}
}

// TestSchemeText checks that every scheme's JSON name reads back as the
// scheme, and that an unknown name is an error.
func TestSchemeText(t *testing.T) {
	for s := range NumSchemes {
		b, _ := s.MarshalText()
		var got Scheme
		if err := got.UnmarshalText(b); err != nil || got != s {
			t.Errorf("%v: read back %v, %v", s, got, err)
		}
	}
	var s Scheme
	if err := s.UnmarshalText([]byte("oracle")); err == nil {
		t.Error("an unknown scheme name was accepted")
	}
}
