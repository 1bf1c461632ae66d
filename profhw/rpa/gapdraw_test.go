package rpa

import (
	"math"
	"testing"

	"rvdyn/profhw"
)

// TestGapStreamMatchesDirect: gaps taken from a stream, drawn a block
// ahead on other goroutines, are the entry's own sequence, across block
// boundaries, as drawing them on the caller's goroutine gives; and the
// entry's RNG is handed over, not shared.
func TestGapStreamMatchesDirect(t *testing.T) {
	for _, rate := range []uint32{1, 2, 256, 8192} {
		mk := func() *entryState {
			s := &entryState{rate: rate, rnd: profhw.NewRNG(42 + uint64(rate))}
			if rate > 1 {
				s.lnq = math.Log1p(-1 / float64(rate))
			}
			return s
		}
		direct, streamed := mk(), mk()
		st := newGapStream(streamed)
		if streamed.rnd != (profhw.RNG{}) {
			t.Fatalf("rate %d: the entry kept its RNG after the stream took it", rate)
		}
		var sum float64
		n := 3*gapBlockLen + 17
		for i := range n {
			want, got := direct.gap(), st.take()
			if got != want {
				t.Fatalf("rate %d: gap %d is %d from the stream, %d drawn directly", rate, i, got, want)
			}
			sum += float64(got)
		}
		if mean := sum / float64(n); rate > 1 && (mean < 0.8*float64(rate) || mean > 1.2*float64(rate)) {
			t.Errorf("rate %d: mean gap %.1f", rate, mean)
		}
	}
}
