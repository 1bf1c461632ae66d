package rpa

import (
	"math"
	"testing"

	"rvdyn/profhw"
)

// TestGeometricGap checks the gaps' distribution (sec. 3.1: each
// selected instruction sampled independently with probability 1/N):
// every gap at least 1, the mean N, and P(gap > k) = (1-1/N)^k at the
// median and at 3N, for several rates; rate 1 samples every one; one
// seed gives one sequence.
func TestGeometricGap(t *testing.T) {
	for _, rate := range []uint32{2, 32, 256, 8192} {
		rnd := profhw.NewRNG(42 + uint64(rate))
		exp, lam := newExp(&rnd), gapLambda(rate)
		const n = 200000
		var sum float64
		k1 := uint64(math.Round(float64(rate) * math.Ln2)) // about the median
		k2 := 3 * uint64(rate)
		var over1, over2 int
		for range n {
			g := geometricGap(exp, rate, lam)
			if g < 1 {
				t.Fatalf("rate %d: gap %d", rate, g)
			}
			sum += float64(g)
			if g > k1 {
				over1++
			}
			if g > k2 {
				over2++
			}
		}
		q := 1 - 1/float64(rate)
		check := func(what string, got, want, tol float64) {
			if math.Abs(got-want) > tol {
				t.Errorf("rate %d: %s %.4f, want %.4f", rate, what, got, want)
			}
		}
		check("mean gap / N", sum/n/float64(rate), 1, 0.01)
		check("P(gap > median)", float64(over1)/n, math.Pow(q, float64(k1)), 0.005)
		check("P(gap > 3N)", float64(over2)/n, math.Pow(q, float64(k2)), 0.003)
	}
	rnd := profhw.NewRNG(1)
	if g := geometricGap(newExp(&rnd), 1, gapLambda(1)); g != 1 {
		t.Errorf("rate 1: gap %d, want 1", g)
	}
	a, b := profhw.NewRNG(7), profhw.NewRNG(7)
	ea, eb := newExp(&a), newExp(&b)
	for i := range 1000 {
		if x, y := geometricGap(ea, 256, gapLambda(256)), geometricGap(eb, 256, gapLambda(256)); x != y {
			t.Fatalf("draw %d: %d and %d from one seed", i, x, y)
		}
	}
}

// BenchmarkGeometricGap measures one draw at rate 256.
func BenchmarkGeometricGap(b *testing.B) {
	rnd := profhw.NewRNG(1)
	exp, lam := newExp(&rnd), gapLambda(256)
	var s uint64
	for b.Loop() {
		s += geometricGap(exp, 256, lam)
	}
	_ = s
}
