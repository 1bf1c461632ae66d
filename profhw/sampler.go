// The basic samplers: tuples in, (tuple, count) messages out for P_r, R_r and CR_r (stratified 3.1, Figures 2 and 3).

package profhw

import "fmt"

// Periodic is the periodic sampler P_r of the stratified paper, section
// 3.1: it selects every r-th element of its input and sends it with the
// implied count r. The zero value is not usable; use NewPeriodic.
type Periodic struct {
	r    uint64
	c    uint64 // elements seen since the last sample, in [0, r)
	sink Sink
}

// NewPeriodic returns P_r sending to sink. It panics if r is 0.
func NewPeriodic(r uint64, sink Sink) *Periodic {
	mustRate(r)
	return &Periodic{r: r, sink: sink}
}

// Feed consumes ts. Only the sampled positions are touched: the sampler is
// a counter, so it skips ahead r elements at a time.
func (p *Periodic) Feed(ts []Tuple) {
	n := uint64(len(ts))
	i := p.r - 1 - p.c // index in ts of the next sample
	for ; i < n; i += p.r {
		p.sink.Message(ts[i], p.r)
	}
	p.c = (p.c + n) % p.r
}

// Reset restarts the period. P_r has no randomness; seed is ignored.
func (p *Periodic) Reset(seed uint64) { p.c = 0 }

// Random is the random sampler R_r of the stratified paper, section 3.1: it
// selects each element independently with probability 1/r and sends it with
// the implied count r. It is stateless apart from its generator, which is
// why stratifying it does not help (section 3.3). Unlike the countdown
// samplers the paper contrasts it with ([2, 15, 33]), it draws a fresh
// number per element.
type Random struct {
	r     uint64
	limit uint64
	rand  rng
	sink  Sink
}

// NewRandom returns R_r sending to sink, with its generator seeded by seed.
// It panics if r is 0.
func NewRandom(r uint64, seed uint64, sink Sink) *Random {
	mustRate(r)
	return &Random{r: r, limit: sampleLimit(r), rand: rng{seed}, sink: sink}
}

// Feed consumes ts.
func (s *Random) Feed(ts []Tuple) {
	for i := range ts {
		if s.rand.next() <= s.limit {
			s.sink.Message(ts[i], s.r)
		}
	}
}

// Reset reseeds the generator.
func (s *Random) Reset(seed uint64) { s.rand = rng{seed} }

// Counter is the counter component C of the stratified paper, section 3.1:
// it measures the length of its input stream. The zero value is a counter
// at zero.
type Counter struct{ n uint64 }

// Add counts k more elements.
func (c *Counter) Add(k uint64) { c.n += k }

// Take returns the count since the last Take and restarts it.
func (c *Counter) Take() uint64 { n := c.n; c.n = 0; return n }

// CountedRandom is CR_r, the random sampler R_r equipped with a counter C
// (stratified paper, section 3.1, Figure 3): a sampled element is sent with
// the number of elements seen since the previous sample, so software learns
// the exact stream length, as with P_r.
type CountedRandom struct {
	r     uint64
	limit uint64
	rand  rng
	count Counter
	sink  Sink
}

// NewCountedRandom returns CR_r sending to sink, seeded by seed. It panics
// if r is 0.
func NewCountedRandom(r uint64, seed uint64, sink Sink) *CountedRandom {
	mustRate(r)
	return &CountedRandom{r: r, limit: sampleLimit(r), rand: rng{seed}, sink: sink}
}

// Feed consumes ts.
func (s *CountedRandom) Feed(ts []Tuple) {
	for i := range ts {
		s.count.Add(1)
		if s.rand.next() <= s.limit {
			s.sink.Message(ts[i], s.count.Take())
		}
	}
}

// Reset clears the counter and reseeds the generator.
func (s *CountedRandom) Reset(seed uint64) { s.rand = rng{seed}; s.count = Counter{} }

func mustRate(r uint64) {
	if r == 0 {
		panic(fmt.Sprintf("profhw: sampling rate must be at least 1, got %d", r))
	}
}
