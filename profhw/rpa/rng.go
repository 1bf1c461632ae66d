// Seeded random numbers: a seed in, a deterministic 64-bit sequence out (splitmix64), for sampling and FILTER.

package rpa

import "math/bits"

// rng is splitmix64 (Steele, Lea, Flood 2014), as in package profhw.
type rng struct{ s uint64 }

func newRNG(seed uint64) *rng { return &rng{s: seed} }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// below returns a uniform number in [0, n) for n > 0.
func (r *rng) below(n uint64) uint64 {
	hi, _ := bits.Mul64(r.next(), n)
	return hi
}
