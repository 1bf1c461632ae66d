// Seeded random numbers: a seed in, a deterministic 64-bit sequence out (splitmix64).

package profhw

import "math/bits"

// rng is splitmix64 (Steele, Lea, Flood 2014): one add and a short mix per
// number, good enough for sampling decisions and table generation, and
// small enough to keep one per substream.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// below returns a uniform number in [0, n) for n > 0.
func (r *rng) below(n uint64) uint64 {
	// Lemire's multiply-shift; the bias for n far below 2^64 is negligible.
	hi, _ := bits.Mul64(r.next(), n)
	return hi
}

// DeriveSeed derives an independent seed from a seed and a label (FNV-1a
// of the label, then one splitmix64 step), so that adding a configuration
// to a list (labelled by Config.SeedLabel) does not change the others'
// random choices.
func DeriveSeed(seed uint64, label string) uint64 {
	h := uint64(14695981039346656037) // FNV-1a
	for i := 0; i < len(label); i++ {
		h ^= uint64(label[i])
		h *= 1099511628211
	}
	r := rng{seed ^ h}
	return r.next()
}

// sampleLimit returns the largest uniform 64-bit number that selects, so
// that x <= sampleLimit(r) holds with probability 1/r (exactly 1 for r = 1).
func sampleLimit(r uint64) uint64 {
	if r <= 1 {
		return ^uint64(0)
	}
	return ^uint64(0) / r
}

// An RNG is the package's seeded splitmix64 stream for other profilers
// that need the same deterministic sampling decisions (the relational
// profiler's every-N sampling and FILTER). Its zero value is the stream
// of seed 0.
type RNG struct{ r rng }

// NewRNG returns the stream that starts from seed.
func NewRNG(seed uint64) RNG { return RNG{rng{seed}} }

// Uint64 returns the next 64-bit number of the stream.
func (g *RNG) Uint64() uint64 { return g.r.next() }

// Below returns a uniform number in [0, n) for n > 0.
func (g *RNG) Below(n uint64) uint64 { return g.r.below(n) }
