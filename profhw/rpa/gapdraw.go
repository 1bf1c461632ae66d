// Sampling gaps: an entry's random stream -> the number of selected instructions up to its next sample (geometric, sec. 3.1).

package rpa

import (
	"math"
	"math/rand/v2"

	"rvdyn/profhw"
)

// geometricGap draws the number of selected instructions up to and
// including the next sample from rnd: 1 for N = rate <= 1, else
// 1 + floor(E / lambda) with E exponentially distributed with mean 1
// (rand.Rand's ExpFloat64 on rnd, a ziggurat) and lambda = -ln(1-1/N),
// so P(gap > k) = (1-1/N)^k: each selected instruction is sampled
// independently with probability 1/N (the paper's simple random
// sampling, sec. 3.1).
//
// The draw runs once per sample on the guest's thread (the engine's, or
// RefillGaps' for native code), so its cost is part of the query's: the
// inversion 1 + floor(ln U / ln(1-1/N)) it replaced took 15 ns a draw
// (math.Log), the ziggurat 5.5 ns (BenchmarkGeometricGap), with the same
// distribution and another sequence.
func geometricGap(exp *rand.Rand, rate uint32, lambda float64) uint64 {
	if rate <= 1 {
		return 1
	}
	g := math.Floor(exp.ExpFloat64() / lambda)
	if g >= 1<<62 {
		return 1 << 62
	}
	return 1 + uint64(g)
}

// gapLambda returns lambda = -ln(1-1/N) of geometricGap for rate N > 1
// (0 for the others, which geometricGap does not divide by).
func gapLambda(rate uint32) float64 {
	if rate <= 1 {
		return 0
	}
	return -math.Log1p(-1 / float64(rate))
}

// newExp returns the exponential draws of geometricGap from the entry's
// stream rnd (which it reads through; rnd must not move).
func newExp(rnd *profhw.RNG) *rand.Rand { return rand.New(rnd) }
