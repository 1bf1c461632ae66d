// Experiments: one tuple stream and a list of configurations in, the error and overhead of each as the stream progresses out (stratified Figure 7, multi-hash Figures 10-12).

package hwprofile

import (
	"fmt"
	"slices"

	"rvdyn/profhw"
)

// An Experiment runs a list of profiler configurations side by side over
// one tuple stream, with a perfect profiler on the same stream, and
// measures each against it:
//
//   - compressors (samplers, tagged, two-level): the invariance-weighted
//     error of stratified section 5.3.1 and the overhead of 5.3.2, at
//     checkpoints as the stream progresses (the shape of Figure 7). At a
//     checkpoint software sees only the messages sent so far; at the end
//     of the stream a Flusher (A_k) is drained first, which is why the
//     paper can call H[P_r]_n A_k as accurate as H[P_r]_n;
//   - interval profilers: the interval error of multi-hash section 5.5
//     (formula (1) split into false/neutral positives/negatives, the shape
//     of Figures 10-12), the measured false-positive rate and the bound of
//     section 6.2. Their overhead charges CyclesPerMessage for every
//     candidate read out of the accumulator at an interval end; the paper
//     counts none, since its consumer is hardware.
//
// Every model gets its own seed, derived from Seed and its notation (of
// its first level, so X and X+A_k share their hash tables), so adding a
// configuration changes no other's result.
type Experiment struct {
	Configs []profhw.Config
	Seed    uint64
	// Filter selects the tuples of the invariance error; the zero value
	// means PaperFilter.
	Filter profhw.InvarianceFilter
	// CyclesPerMessage is the cost of a message; 0 means CyclesPerMessage.
	CyclesPerMessage float64
	// Every places a checkpoint every Every tuples; 0 means the 1-2-5
	// series 1000, 2000, 5000, 10000, ... The end of the stream is always
	// a checkpoint.
	Every uint64
}

// A Point is a measurement at a checkpoint.
type Point struct {
	Tuples       uint64  `json:"tuples"`       // tuples consumed so far
	Instructions uint64  `json:"instructions"` // guest instructions retired so far
	Error        float64 `json:"error"`        // fraction
	Overhead     float64 `json:"overhead"`     // fraction of guest instructions
	// Scored is what Error is computed over: selected tuples (invariance
	// metric) or intervals with a candidate (interval metric). Zero means
	// there is no error to speak of yet, and Error is 0 by convention.
	Scored int `json:"scored"`
}

// A Row is the result of one configuration for one profile kind.
type Row struct {
	Guest        string  `json:"guest,omitempty"` // set by callers that run several guests
	Config       string  `json:"config"`          // canonical notation
	Profile      string  `json:"profile"`         // "value", "edge", "call" or "tuple"
	Metric       string  `json:"metric"`          // "invariance" (stratified 5.3.1) or "interval" (multi-hash 5.5)
	Error        float64 `json:"error"`           // fraction
	Overhead     float64 `json:"overhead"`
	Messages     uint64  `json:"messages"` // messages to software, all kinds
	Tuples       uint64  `json:"tuples"`
	Instructions uint64  `json:"instructions"`
	// Selected is the number of tuples the invariance error is computed
	// over (after the 1000-execution, 10% and 40% filters).
	Selected int `json:"selected_tuples,omitempty"`
	// The interval error breakdown, for interval profilers only.
	*profhw.IntervalBreakdown
	Series []Point `json:"series"`
}

// A Result is what an Experiment measured.
type Result struct {
	Tuples       uint64         // tuples in the stream
	Instructions uint64         // guest instructions retired
	Kinds        profhw.KindSet // profile kinds in the stream
	Rows         []Row          // by configuration, then kind
}

// Run consumes src and returns the measurements. A source error is
// returned together with the result measured up to it.
func (e *Experiment) Run(src profhw.Source) (*Result, error) {
	if len(e.Configs) == 0 {
		return nil, fmt.Errorf("profhw: experiment has no configurations: %w", profhw.ErrConfig)
	}
	x, err := e.build()
	if err != nil {
		return nil, err
	}
	retired, srcErr := src.Run(x.consume)
	x.finish(max(retired, x.retired))
	return x.result(), srcErr
}

// run is the state of one Experiment.Run.
type run struct {
	e        *Experiment
	filter   profhw.InvarianceFilter
	cpm      float64
	perfect  *profhw.Profile
	comps    []profhw.Compressor
	profiles []*profhw.Profile
	compIdx  []int // config index of comps[i]
	ivals    []*profhw.IntervalRun
	ivalIdx  [][]int // config index of ivals[g].Model(j)
	tuples   uint64
	retired  uint64
	kinds    profhw.KindSet
	next     uint64 // next checkpoint
	series   map[[2]int][]Point
	final    map[[2]int]Row
}

func (e *Experiment) build() (*run, error) {
	x := &run{e: e, filter: e.Filter, cpm: e.CyclesPerMessage,
		series: map[[2]int][]Point{}, final: map[[2]int]Row{}}
	if x.filter == (profhw.InvarianceFilter{}) {
		x.filter = profhw.PaperFilter
	}
	if x.cpm == 0 {
		x.cpm = profhw.CyclesPerMessage
	}
	groups := map[[2]uint64]int{}
	var gcfgs [][]profhw.IntervalConfig
	var gseeds [][]uint64
	for i, c := range e.Configs {
		seed := profhw.DeriveSeed(e.Seed, c.SeedLabel())
		if c.Kind == profhw.ConfigInterval {
			if err := c.Interval.Validate(); err != nil {
				return nil, fmt.Errorf("profhw: %v: %w", c, err)
			}
			key := [2]uint64{c.Interval.Interval, c.Interval.ThresholdCount()}
			g, ok := groups[key]
			if !ok {
				g = len(gcfgs)
				groups[key] = g
				gcfgs = append(gcfgs, nil)
				gseeds = append(gseeds, nil)
				x.ivalIdx = append(x.ivalIdx, nil)
			}
			gcfgs[g] = append(gcfgs[g], c.Interval)
			gseeds[g] = append(gseeds[g], seed)
			x.ivalIdx[g] = append(x.ivalIdx[g], i)
			continue
		}
		p := profhw.NewProfile()
		comp, err := c.NewCompressor(seed, p)
		if err != nil {
			return nil, err
		}
		x.comps = append(x.comps, comp)
		x.profiles = append(x.profiles, p)
		x.compIdx = append(x.compIdx, i)
	}
	for g := range gcfgs {
		x.ivals = append(x.ivals, profhw.NewIntervalRun(gcfgs[g], gseeds[g]))
	}
	if len(x.comps) > 0 {
		x.perfect = profhw.NewProfile()
	}
	x.next = x.nextCheckpoint(0)
	return x, nil
}

func (x *run) nextCheckpoint(after uint64) uint64 {
	if x.e.Every > 0 {
		return (after/x.e.Every + 1) * x.e.Every
	}
	for p := uint64(1000); ; p *= 10 {
		for _, m := range []uint64{1, 2, 5} {
			if m*p > after {
				return m * p
			}
		}
	}
}

// consume feeds one batch, split at checkpoints.
func (x *run) consume(b profhw.Batch) error {
	ts, rs := b.Tuples, b.Retired
	for _, t := range ts {
		x.kinds = x.kinds.With(t.Kind())
	}
	for len(ts) > 0 {
		k := min(uint64(len(ts)), x.next-x.tuples)
		chunk := ts[:k]
		if x.perfect != nil {
			x.perfect.Feed(chunk)
		}
		for _, c := range x.comps {
			c.Feed(chunk)
		}
		for _, r := range x.ivals {
			r.Feed(chunk)
		}
		x.tuples += k
		x.retired = rs[k-1]
		ts, rs = ts[k:], rs[k:]
		if x.tuples == x.next {
			x.checkpoint()
			x.next = x.nextCheckpoint(x.tuples)
		}
	}
	return nil
}

// A Flusher is a compressor that can hand what it holds to software at
// the end of profiling: the associative table of a TwoLevel compressor
// holds complete tuples and can be drained (stratified 3.4); the counter
// tables of H[X]_n and of the tagged compressor hold only counts and
// cannot.
type Flusher interface {
	Flush()
}

func (x *run) finish(retired uint64) {
	for _, r := range x.ivals {
		r.Finish()
	}
	for _, c := range x.comps {
		if f, ok := c.(Flusher); ok {
			f.Flush()
		}
	}
	x.retired = retired
	x.checkpoint()
}

// checkpoint measures every configuration and records a Point (replacing
// the previous one if no tuple arrived since).
func (x *run) checkpoint() {
	add := func(key [2]int, p Point) {
		s := x.series[key]
		if n := len(s); n > 0 && s[n-1].Tuples == p.Tuples {
			s = s[:n-1]
		}
		x.series[key] = append(s, p)
	}
	if len(x.comps) > 0 {
		errs := profhw.InvarianceErrors(x.perfect, x.profiles, x.filter)
		for i, p := range x.profiles {
			ov := profhw.Overhead(p.Messages(), x.retired, x.cpm)
			for k := profhw.Kind(0); k < profhw.NumKinds; k++ {
				if !x.kinds.Has(k) {
					continue
				}
				key := [2]int{x.compIdx[i], int(k)}
				ie := errs[i][k]
				add(key, Point{x.tuples, x.retired, ie.Error, ov, ie.Selected})
				x.final[key] = Row{Metric: "invariance", Error: ie.Error, Overhead: ov,
					Messages: p.Messages(), Selected: ie.Selected}
			}
		}
	}
	for g, r := range x.ivals {
		for j, ci := range x.ivalIdx[g] {
			msgs := r.Readouts(j)
			ov := profhw.Overhead(msgs, x.retired, x.cpm)
			for k := profhw.Kind(0); k < profhw.NumKinds; k++ {
				if !x.kinds.Has(k) {
					continue
				}
				key := [2]int{ci, int(k)}
				ie := r.Result(j, k, false)
				add(key, Point{x.tuples, x.retired, ie.Error, ov, ie.Intervals})
				bd := ie.IntervalBreakdown
				x.final[key] = Row{Metric: "interval", Error: ie.Error, Overhead: ov,
					Messages: msgs, IntervalBreakdown: &bd}
			}
		}
	}
}

func (x *run) result() *Result {
	res := &Result{Tuples: x.tuples, Instructions: x.retired, Kinds: x.kinds}
	keys := make([][2]int, 0, len(x.final))
	for k := range x.final {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	for _, key := range keys {
		row := x.final[key]
		row.Config = x.e.Configs[key[0]].String()
		row.Profile = profhw.Kind(key[1]).String()
		row.Tuples, row.Instructions = x.tuples, x.retired
		row.Series = x.series[key]
		res.Rows = append(res.Rows, row)
	}
	return res
}
