// Tests of the prediction reports: a hand-made path sequence -> hit rate at a profiled flow, averages.

package prediction

import (
	"math"
	"testing"

	"rvdyn/net"
)

// seqProfile builds a Profile from path heads (heads[p] is path p's head)
// and an execution order, as the Profiler would.
func seqProfile(heads []net.HeadID, order []net.PathID) *net.Profile {
	prof := &net.Profile{Order: order}
	nh := 0
	for p, h := range heads {
		prof.Paths = append(prof.Paths, net.Path{Start: 0x1000 * uint64(h+1), Head: h, Sig: [2]uint64{uint64(p)}})
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
	seqHeads = []net.HeadID{0, 0, 1, 1}
	seqOrder = []net.PathID{0, 0, 0, 1, 0, 0, 1, 1, 1, 1, 2, 3, 2, 2, 0, 0}
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestHitRateAt(t *testing.T) {
	a := net.Replay(seqProfile(seqHeads, seqOrder), []int{2, 3}, 0.2)
	// Path profile: (0, 100), (43.75, 66.67), (62.5, 50).
	if got := HitRateAt(a, net.SchemePathProfile, 43.75/2); !near(got, (100+200.0/3)/2) {
		t.Errorf("path profile at 21.875%%: %v", got)
	}
	if got := HitRateAt(a, net.SchemeNET, 0); got != 100 {
		t.Errorf("NET at 0%%: %v", got)
	}
	if got := HitRateAt(a, net.SchemeNET, 90); !math.IsNaN(got) {
		t.Errorf("NET at 90%% (beyond the curve): %v, want NaN", got)
	}
	avg := Averages([]*net.Analysis{a, a})
	if len(avg) != 6 || avg[1].Scheme != net.SchemeNET || avg[1].Delay != 2 || !near(avg[1].ProfiledFlow, 37.5) {
		t.Errorf("averages %+v", avg)
	}
}
