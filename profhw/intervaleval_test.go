// Tests of the interval error: the four categories, formula (1), the section 6.2 bound, IntervalRun bookkeeping.

package profhw

import (
	"math"
	"testing"
)

func TestScoreIntervalCategories(t *testing.T) {
	a, b, c := tup(0x100, 1), tup(0x104, 2), tup(0x108, 3)
	// One counter shared by every tuple, T = 5.
	base := IntervalConfig{Tables: 1, Entries: 1, Interval: 1000, Threshold: 0.005, Retain: true, Shield: true}
	tests := []struct {
		name           string
		reset          bool
		acc            int
		stream         []Tuple
		fp, fn, np, nn uint64
		sumFP          uint64
		fpTuples       uint64
	}{
		// B rides A's counter to T (false positive, fh 5 vs fp 2); A is
		// promoted at counter 6 with fp 4 so far and counted exactly after
		// (neutral positive, 8 vs 6); C finds the accumulator full (false
		// negative, 0 vs 5).
		{"FP, NP and FN", false, 2, seq(a, 3, b, 2, a, 3, c, 5), 3, 5, 2, 0, 13, 1},
		// With immediate reset, B's promotion zeroes the counter A had
		// built up: A is promoted at 5 with fp 9 (neutral negative).
		{"reset gives NN", true, 0, seq(a, 4, b, 1, a, 5), 4, 0, 0, 4, 10, 1},
		// A lone tuple is counted exactly: nothing to score but its fp.
		{"exact", false, 0, seq(a, 7), 0, 0, 0, 0, 7, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := base
			cfg.Reset, cfg.AccEntries = tc.reset, tc.acc
			m := NewMultiHash(cfg, 1)
			p := NewPerfectInterval(cfg.ThresholdCount())
			m.Feed(tc.stream)
			p.Feed(tc.stream)
			s := ScoreInterval(m, p)[KindNone]
			if s.FalsePositive != tc.fp || s.FalseNegative != tc.fn || s.NeutralPositive != tc.np || s.NeutralNegative != tc.nn {
				t.Errorf("FP/FN/NP/NN = %d/%d/%d/%d, want %d/%d/%d/%d",
					s.FalsePositive, s.FalseNegative, s.NeutralPositive, s.NeutralNegative, tc.fp, tc.fn, tc.np, tc.nn)
			}
			if s.SumFP != tc.sumFP || s.FalsePositiveTuples != tc.fpTuples {
				t.Errorf("sum fp %d, FP tuples %d; want %d, %d", s.SumFP, s.FalsePositiveTuples, tc.sumFP, tc.fpTuples)
			}
			// Formula (1).
			want := float64(tc.fp+tc.fn+tc.np+tc.nn) / float64(tc.sumFP)
			if math.Abs(s.Error()-want) > 1e-12 {
				t.Errorf("E = %v, want %v", s.Error(), want)
			}
		})
	}
}

func TestScoreIntervalPerKind(t *testing.T) {
	v, e := MakeTuple(KindValue, 0x100, 1), MakeTuple(KindEdge, 0x100, 0x104)
	cfg := IntervalConfig{Tables: 1, Entries: 1 << 12, Interval: 1000, Threshold: 0.005, Retain: true, Shield: true}
	m := NewMultiHash(cfg, 1)
	p := NewPerfectInterval(cfg.ThresholdCount())
	s := seq(v, 6, e, 9)
	m.Feed(s)
	p.Feed(s)
	sc := ScoreInterval(m, p)
	if sc[KindValue].SumFP != 6 || sc[KindEdge].SumFP != 9 || sc[KindNone].SumFP != 0 {
		t.Errorf("per-kind sum fp %d/%d/%d, want 6/9/0", sc[KindValue].SumFP, sc[KindEdge].SumFP, sc[KindNone].SumFP)
	}
	if sc[KindValue].Error() != 0 || sc[KindEdge].Error() != 0 {
		t.Errorf("an alias-free profiler has error %v, %v", sc[KindValue].Error(), sc[KindEdge].Error())
	}
}

func TestFalsePositiveBound(t *testing.T) {
	tests := []struct {
		n, z int
		th   float64
		want float64
	}{
		{1, 1000, 0.01, 0.1},                     // 100/(tZ) = 100/(1*1000)
		{4, 1000, 0.01, 0.0256},                  // (4/10)^4
		{2, 500, 0.01, 0.16},                     // (2/5)^2
		{8, 2048, 0.01, math.Pow(8/20.48, 8)},    // the multihash preset
		{1, 50, 0.01, 1},                         // 100/t counters above threshold exceed the table: capped
		{16, 1000, 0.01, 1},                      // (16/10)^16 > 1: capped
		{4, 2048, 0.001, math.Pow(4/2.048, 4.0)}, // > 1: capped below
	}
	for _, tc := range tests {
		want := math.Min(tc.want, 1)
		if got := FalsePositiveBound(tc.n, tc.z, tc.th); math.Abs(got-want) > 1e-12 {
			t.Errorf("FalsePositiveBound(%d, %d, %v) = %v, want %v", tc.n, tc.z, tc.th, got, want)
		}
	}
}

func TestIntervalRunAveragesIntervals(t *testing.T) {
	stream := zipfStream(55000, 3000, 12) // 5 full intervals and a partial one
	cfgs := []IntervalConfig{
		{Tables: 1, Entries: 64, Interval: 10000, Threshold: 0.01, Conservative: false, Reset: true, Retain: true, Shield: true},
		{Tables: 4, Entries: 64, Interval: 10000, Threshold: 0.01, Conservative: true, Retain: true, Shield: true},
	}
	run := NewIntervalRun(cfgs, []uint64{1, 2})
	// Score the same intervals by hand, with separate models and perfect
	// profilers, to check the run's bookkeeping.
	var want [2][]float64
	for i, c := range cfgs {
		m := NewMultiHash(c, []uint64{1, 2}[i])
		p := NewPerfectInterval(c.ThresholdCount())
		m.OnInterval = func(m *MultiHash) {
			if s := ScoreInterval(m, p)[KindNone]; s.SumFP > 0 {
				want[i] = append(want[i], s.Error())
			}
			p.Reset()
		}
		for lo := 0; lo < len(stream); lo += 10000 {
			chunk := stream[lo:min(lo+10000, len(stream))]
			p.Feed(chunk)
			m.Feed(chunk)
		}
		m.EndInterval()
	}
	for lo, i := 0, 0; lo < len(stream); i++ {
		hi := min(lo+[]int{4096, 333}[i%2], len(stream))
		run.Feed(stream[lo:hi])
		lo = hi
	}
	run.Finish()
	for i := range cfgs {
		var mean float64
		for _, e := range want[i] {
			mean += e
		}
		mean /= float64(len(want[i]))
		got := run.Result(i, KindNone, false)
		if got.Intervals != len(want[i]) || math.Abs(got.Error-mean) > 1e-12 {
			t.Errorf("model %d: %d intervals, error %v; want %d, %v", i, got.Intervals, got.Error, len(want[i]), mean)
		}
		parts := got.FalsePositive + got.FalseNegative + got.NeutralPositive + got.NeutralNegative
		if math.Abs(parts-got.Error) > 1e-12 {
			t.Errorf("model %d: categories add up to %v, error %v", i, parts, got.Error)
		}
		if all := run.Result(i, 0, true); math.Abs(all.Error-got.Error) > 1e-12 {
			t.Errorf("model %d: all-kinds error %v differs from the only kind's %v", i, all.Error, got.Error)
		}
	}
	if len(want[0]) != 6 {
		t.Errorf("scored %d intervals, want 6 (5 full and the partial last)", len(want[0]))
	}
}

// TestIntervalSpikes checks the per-interval spread of the error: the
// mean over intervals, the largest one, and the intervals above 10%.
func TestIntervalSpikes(t *testing.T) {
	var a intervalTally
	for _, fp := range []uint64{0, 5, 50, 11, 0} { // errors 0, 5%, 50%, 11% of 100, and one empty interval
		if fp == 0 && a.sum.Intervals > 0 {
			a.add(IntervalScore{}) // nothing In either profile: no error rate
			continue
		}
		a.add(IntervalScore{SumFP: 100, FalsePositive: fp})
	}
	r := a.result(0)
	if r.Intervals != 4 || math.Abs(r.Error-0.165) > 1e-12 || r.MaxError != 0.5 || r.Spikes != 2 {
		t.Errorf("got %d intervals, error %v, max %v, %d spikes; want 4, 0.165, 0.5, 2", r.Intervals, r.Error, r.MaxError, r.Spikes)
	}
}
