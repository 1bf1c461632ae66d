// Sample sets and the countdown sampler: a seed and a period -> the retired-instruction counts at which to take a PC sample.

package layout

import (
	"math/rand/v2"
	"slices"
)

// A SampleSet is the result of one sampled run, the paper's "sample set":
// how many PC samples fell on each guest address. Sets from several runs
// are summed without scaling (Add).
type SampleSet map[uint64]float64

// Add adds every sample of o to s.
func (s SampleSet) Add(o SampleSet) {
	for pc, n := range o {
		s[pc] += n
	}
}

// Total returns the number of samples in s.
func (s SampleSet) Total() float64 {
	var t float64
	for _, n := range s {
		t += n
	}
	return t
}

// PCs returns the sampled addresses, sorted.
func (s SampleSet) PCs() []uint64 {
	pcs := make([]uint64, 0, len(s))
	for pc := range s {
		pcs = append(pcs, pc)
	}
	slices.Sort(pcs)
	return pcs
}

// SampleOptions configure the frequency-based sampler of the paper's
// section 2 ("sampling the PC every period of n instructions, rather than
// sampling on a time interval"). The zero value samples nothing.
type SampleOptions struct {
	// Period is the mean distance in retired guest instructions between
	// two samples (0: no sampling). The k-th sample (k = 0, 1, ...) is
	// taken after k*Period + r_k retired instructions, r_k uniform in
	// [0, Period): one sample per period at a random offset, so that a
	// loop whose length divides the period is not seen at one phase only.
	Period uint64
	// Seed seeds the offsets: the same seed gives the same sample set in
	// every mode (interp, dynamo), because samples are taken at exact
	// retired-instruction counts.
	Seed uint64
}

// A Countdown yields the retired-instruction counts at which samples are
// due. It is deterministic for a given SampleOptions.
type Countdown struct {
	period uint64
	k      uint64
	next   uint64
	rng    *rand.Rand
}

// NewCountdown returns the countdown of o, or nil if o.Period is 0.
func NewCountdown(o SampleOptions) *Countdown {
	if o.Period == 0 {
		return nil
	}
	c := &Countdown{period: o.Period, rng: rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15))}
	c.next = c.rng.Uint64N(o.Period)
	return c
}

// Next returns the retired-instruction count at which the next sample is
// due: a sample is the pc of the instruction about to retire when the
// machine has retired exactly Next instructions.
func (c *Countdown) Next() uint64 { return c.next }

// Advance moves to the following sample point.
func (c *Countdown) Advance() {
	c.k++
	c.next = c.k*c.period + c.rng.Uint64N(c.period)
}
