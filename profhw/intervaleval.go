// Interval error: a hardware interval profiler and a perfect one on the same interval in, false/neutral positive/negative error (formula 1) and the false-positive bound out (multi-hash 5.5, 6.2).

package profhw

import "math"

// PerfectInterval is the perfect interval profiler of the multi-hash
// paper, section 5.5.1: it counts every tuple of the current interval
// exactly and knows which reached the candidate threshold T.
type PerfectInterval struct {
	t        uint64
	counts   *tupleTable
	cands    []Tuple
	distinct [NumKinds]uint64
}

// NewPerfectInterval returns a perfect profiler for candidate threshold
// count t (IntervalConfig.ThresholdCount).
func NewPerfectInterval(t uint64) *PerfectInterval {
	return &PerfectInterval{t: t, counts: newTupleTable(1 << 12)}
}

// Feed counts ts into the current interval.
func (p *PerfectInterval) Feed(ts []Tuple) {
	for i := range ts {
		n, fresh := p.counts.Add(ts[i], 1)
		if fresh {
			p.distinct[ts[i].Kind()]++
		}
		if n == p.t {
			p.cands = append(p.cands, ts[i])
		}
	}
}

// Count returns fp: the occurrences of v in the current interval.
func (p *PerfectInterval) Count(v Tuple) uint64 { n, _ := p.counts.Get(v); return n }

// Candidates returns the tuples that reached T in the current interval, in
// the order they reached it. The slice is reused after Reset.
func (p *PerfectInterval) Candidates() []Tuple { return p.cands }

// Distinct returns the number of distinct tuples of kind k in the interval.
func (p *PerfectInterval) Distinct(k Kind) uint64 { return p.distinct[k] }

// Reset starts a new interval.
func (p *PerfectInterval) Reset() {
	p.counts.Reset()
	p.cands = p.cands[:0]
	p.distinct = [NumKinds]uint64{}
}

// An IntervalScore is the comparison of one interval of a hardware profiler
// with the perfect profiler, for one profile kind (multi-hash section 5.5,
// Figure 3). With fp and fh a tuple's frequencies in the perfect and
// hardware profiles and T the threshold, a tuple is "In" a profile if its
// frequency there is at least T, and among the tuples In either profile:
//
//	false positive:   In hardware, Out perfect (fh >= T > fp)
//	false negative:   Out hardware, In perfect (fp >= T > fh; fh is 0 if the tuple has no accumulator entry)
//	neutral positive: In both, fh > fp
//	neutral negative: In both, fh < fp
//
// The error of formula (1) is E = sum |fp-fh| / sum fp over those tuples;
// each category's share is the sum of |fp-fh| over its tuples divided by
// the same sum fp, so the four add up to E.
type IntervalScore struct {
	SumFP               uint64 // sum of fp over the tuples In either profile
	FalsePositive       uint64 // sum of |fp-fh| over false positives
	FalseNegative       uint64
	NeutralPositive     uint64
	NeutralNegative     uint64
	FalsePositiveTuples uint64 // number of false-positive tuples
	PerfectCandidates   uint64 // tuples In the perfect profile
	HardwareCandidates  uint64 // tuples In the hardware profile
	NonCandidateTuples  uint64 // distinct tuples of the interval that are Out perfect
}

// Error returns E of formula (1), a fraction (it can exceed 1: false
// positives add error beyond the perfect counts), and 0 if no tuple was In
// either profile.
func (s IntervalScore) Error() float64 {
	if s.SumFP == 0 {
		return 0
	}
	return float64(s.FalsePositive+s.FalseNegative+s.NeutralPositive+s.NeutralNegative) / float64(s.SumFP)
}

// ScoreInterval compares the current interval of hw with perfect, which
// must have been fed the same tuples, and returns the score per profile
// kind. Call it from hw.OnInterval.
func ScoreInterval(hw *MultiHash, perfect *PerfectInterval) [NumKinds]IntervalScore {
	var s [NumKinds]IntervalScore
	t := hw.t
	hw.Candidates(func(v Tuple, fh uint64) {
		k := &s[v.Kind()]
		fp := perfect.Count(v)
		k.HardwareCandidates++
		k.SumFP += fp
		switch {
		case fp < t:
			k.FalsePositive += fh - fp
			k.FalsePositiveTuples++
		case fh > fp:
			k.NeutralPositive += fh - fp
		default:
			k.NeutralNegative += fp - fh
		}
	})
	for _, v := range perfect.Candidates() {
		k := &s[v.Kind()]
		k.PerfectCandidates++
		fh, _ := hw.AccCount(v)
		if fh >= t {
			continue // scored above
		}
		fp := perfect.Count(v)
		k.SumFP += fp
		k.FalseNegative += fp - fh
	}
	for k := range s {
		s[k].NonCandidateTuples = perfect.Distinct(Kind(k)) - s[k].PerfectCandidates
	}
	return s
}

// IntervalError is the error of an interval profiler over a whole stream,
// for one profile kind: formula (1) per interval, then "a simple average
// over the error rates seen by all intervals" (section 5.5.2). All fields
// are fractions. Intervals in which no tuple of the kind is In either
// profile have no error rate and are left out of the average.
type IntervalError struct {
	Error float64 `json:"error"` // mean E of formula (1)
	IntervalBreakdown
}

// IntervalBreakdown splits an IntervalError into its four categories (each
// the mean over intervals of that category's share of E, so they add up to
// Error) and carries the false-positive rate next to its bound.
type IntervalBreakdown struct {
	FalsePositive   float64 `json:"false_positive"`
	FalseNegative   float64 `json:"false_negative"`
	NeutralPositive float64 `json:"neutral_positive"`
	NeutralNegative float64 `json:"neutral_negative"`
	Intervals       int     `json:"intervals"` // intervals averaged over
	// FalsePositiveRate is the measured probability that a tuple which is
	// not a candidate turns into a false positive: false-positive tuples
	// over distinct non-candidate tuples, pooled over all intervals (the
	// quantity section 6.2 bounds).
	FalsePositiveRate float64 `json:"false_positive_rate"`
	// FalsePositiveBound is FalsePositiveBound for the configuration.
	FalsePositiveBound float64 `json:"false_positive_bound"`
	// MaxError is the largest per-interval error and Spikes the number of
	// intervals whose error exceeds SpikeError: how the error is spread
	// over the run (multi-hash Figure 13 plots it per interval; a better
	// profiler lowers "the magnitude as well as the number of such spikes").
	MaxError float64 `json:"max_interval_error"`
	Spikes   int     `json:"spikes"`
}

// SpikeError is the per-interval error above which an interval counts as
// a spike in IntervalBreakdown.Spikes: 10%, a fraction.
const SpikeError = 0.10

// intervalTally accumulates IntervalScores into an IntervalError.
type intervalTally struct {
	sum           IntervalError // sums of per-interval fractions
	fpTuples, non uint64
}

func (a *intervalTally) add(s IntervalScore) {
	a.fpTuples += s.FalsePositiveTuples
	a.non += s.NonCandidateTuples
	if s.SumFP == 0 {
		return
	}
	d := float64(s.SumFP)
	a.sum.Error += s.Error()
	a.sum.FalsePositive += float64(s.FalsePositive) / d
	a.sum.FalseNegative += float64(s.FalseNegative) / d
	a.sum.NeutralPositive += float64(s.NeutralPositive) / d
	a.sum.NeutralNegative += float64(s.NeutralNegative) / d
	a.sum.Intervals++
	e := s.Error()
	a.sum.MaxError = max(a.sum.MaxError, e)
	if e > SpikeError {
		a.sum.Spikes++
	}
}

func (a *intervalTally) result(bound float64) IntervalError {
	r := IntervalError{}
	r.Intervals, r.FalsePositiveBound = a.sum.Intervals, bound
	r.MaxError, r.Spikes = a.sum.MaxError, a.sum.Spikes
	if n := float64(a.sum.Intervals); n > 0 {
		r.Error = a.sum.Error / n
		r.FalsePositive = a.sum.FalsePositive / n
		r.FalseNegative = a.sum.FalseNegative / n
		r.NeutralPositive = a.sum.NeutralPositive / n
		r.NeutralNegative = a.sum.NeutralNegative / n
	}
	if a.non > 0 {
		r.FalsePositiveRate = float64(a.fpTuples) / float64(a.non)
	}
	return r
}

// FalsePositiveBound returns the approximate upper bound of section 6.2 on
// the probability that an input tuple turns into a false positive, for
// `tables` hash tables sharing `entries` counters and candidate threshold
// `threshold` (a fraction; the paper's t is 100*threshold percent):
//
//	p = (100 n / (t Z))^n = (n / (threshold Z))^n
//
// At most 100/t counters of a table can be at or above the threshold; a
// tuple becomes a false positive if it hits such a counter in all n
// independent tables of Z/n counters. The result is capped at 1. The bound
// ignores shielding, retaining, conservative update and the actual number
// of distinct tuples, so it is loose (section 6.2).
func FalsePositiveBound(tables, entries int, threshold float64) float64 {
	if tables < 1 || entries < 1 || threshold <= 0 {
		return 1
	}
	q := float64(tables) / (threshold * float64(entries))
	if q >= 1 {
		return 1
	}
	return math.Pow(q, float64(tables))
}

// IntervalRun runs several interval profilers with the same interval length
// and threshold side by side with one perfect interval profiler, and scores
// every interval of each. The zero value is not usable; use
// NewIntervalRun.
type IntervalRun struct {
	interval uint64
	t        uint64
	pos      uint64
	perfect  *PerfectInterval
	models   []*MultiHash
	tallies  [][NumKinds + 1]intervalTally // [model][kind], index NumKinds = all kinds
	readouts []uint64                      // candidates read out per model
}

// NewIntervalRun returns a run for the given configurations, which must
// share Interval and ThresholdCount; seeds[i] seeds model i's hashes.
func NewIntervalRun(cfgs []IntervalConfig, seeds []uint64) *IntervalRun {
	r := &IntervalRun{interval: cfgs[0].Interval, t: cfgs[0].ThresholdCount()}
	r.perfect = NewPerfectInterval(r.t)
	r.tallies = make([][NumKinds + 1]intervalTally, len(cfgs))
	r.readouts = make([]uint64, len(cfgs))
	for i, c := range cfgs {
		if c.Interval != r.interval || c.ThresholdCount() != r.t {
			panic("profhw: NewIntervalRun: configurations differ in interval or threshold")
		}
		m := NewMultiHash(c, seeds[i])
		m.OnInterval = func(m *MultiHash) { r.score(i, m) }
		r.models = append(r.models, m)
	}
	return r
}

func (r *IntervalRun) score(i int, m *MultiHash) {
	s := ScoreInterval(m, r.perfect)
	var all IntervalScore
	for k := range s {
		r.tallies[i][k].add(s[k])
		all.SumFP += s[k].SumFP
		all.FalsePositive += s[k].FalsePositive
		all.FalseNegative += s[k].FalseNegative
		all.NeutralPositive += s[k].NeutralPositive
		all.NeutralNegative += s[k].NeutralNegative
		all.FalsePositiveTuples += s[k].FalsePositiveTuples
		all.NonCandidateTuples += s[k].NonCandidateTuples
		r.readouts[i] += s[k].HardwareCandidates
	}
	r.tallies[i][NumKinds].add(all)
}

// Feed feeds ts to the perfect profiler and every model, interval by
// interval, so each model is scored against the perfect profiler at the
// same boundary.
func (r *IntervalRun) Feed(ts []Tuple) {
	for len(ts) > 0 {
		k := min(uint64(len(ts)), r.interval-r.pos)
		chunk := ts[:k]
		r.perfect.Feed(chunk)
		for _, m := range r.models {
			m.Feed(chunk) // scores itself at the boundary, via OnInterval
		}
		r.pos += k
		if r.pos == r.interval {
			r.perfect.Reset()
			r.pos = 0
		}
		ts = ts[k:]
	}
}

// Finish ends a partial last interval, scoring it like the others (with
// the same threshold count T).
func (r *IntervalRun) Finish() {
	if r.pos == 0 {
		return
	}
	for _, m := range r.models {
		m.EndInterval()
	}
	r.perfect.Reset()
	r.pos = 0
}

// Result returns the error of model i so far for kind k, or for all kinds
// together if all is true.
func (r *IntervalRun) Result(i int, k Kind, all bool) IntervalError {
	c := r.models[i].cfg
	b := FalsePositiveBound(c.Tables, c.Entries, c.Threshold)
	if all {
		return r.tallies[i][NumKinds].result(b)
	}
	return r.tallies[i][k].result(b)
}

// Readouts returns the number of candidate entries model i has handed to
// software at interval ends so far.
func (r *IntervalRun) Readouts(i int) uint64 { return r.readouts[i] }

// Model returns model i.
func (r *IntervalRun) Model(i int) *MultiHash { return r.models[i] }
