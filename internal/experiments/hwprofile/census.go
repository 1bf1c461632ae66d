// Interval census: a tuple stream in, per interval length the distinct tuples, the candidates a perfect profiler finds and how the candidate set changes from one interval to the next out (multi-hash 5.6.1, Figures 4-6).

package hwprofile

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"rvdyn/profhw"
)

// A CensusSpec is one interval length and candidate threshold of the
// census (multi-hash Figures 4-6 use 10,000, 100,000 and 1,000,000
// tuples, thresholds 1% and 0.1%).
type CensusSpec struct {
	Interval  uint64  // tuples per interval
	Threshold float64 // candidate threshold, a fraction of Interval
}

// DefaultCensus is the paper's grid: three interval lengths at 1%, and
// the two longer ones at 0.1% too.
var DefaultCensus = []CensusSpec{{10_000, 0.01}, {100_000, 0.01}, {100_000, 0.001}, {1_000_000, 0.01}, {1_000_000, 0.001}}

// A CensusRow is the census of one stream at one CensusSpec, over its
// complete intervals (a trailing partial interval is left out).
type CensusRow struct {
	Guest     string  `json:"guest,omitempty"`
	Interval  uint64  `json:"interval"`
	Threshold float64 `json:"threshold"`
	Intervals int     `json:"intervals"`
	// Distinct is the mean number of distinct tuples per interval
	// (Figure 4); Candidates the mean number of tuples that reached the
	// threshold in an interval (Figure 5), and CandidateShare the mean
	// share of the interval's tuples those candidates account for.
	Distinct       float64 `json:"distinct"`
	Candidates     float64 `json:"candidates"`
	CandidateShare float64 `json:"candidate_share"`
	// Variation holds, for each pair of consecutive intervals, the
	// change in the candidate set in percent: the candidates in one of
	// the two sets but not both, over those in either (0 when both are
	// empty), sorted ascending, so that Variation[i] is the y of
	// Figure 6 at x = 100*(i+1)/len(Variation): that share of the
	// interval pairs changed by at most this much.
	Variation []float64 `json:"variation"`
}

// VariationAt returns the change in candidates that a share x (0..1) of
// the interval pairs stay below or at (Figure 6), or 0 without pairs.
func (r *CensusRow) VariationAt(x float64) float64 {
	n := len(r.Variation)
	if n == 0 {
		return 0
	}
	i := int(x*float64(n)+0.5) - 1
	return r.Variation[min(max(i, 0), n-1)]
}

// Census runs a perfect interval profiler (multi-hash 5.5.1) per spec over
// src's tuples of every kind together.
func Census(src profhw.Source, specs []CensusSpec) ([]CensusRow, error) {
	type state struct {
		spec CensusSpec
		p    *profhw.PerfectInterval
		n    uint64
		row  CensusRow
		prev map[profhw.Tuple]bool
	}
	st := make([]*state, len(specs))
	for i, s := range specs {
		if s.Interval == 0 || s.Threshold <= 0 || s.Threshold > 1 {
			return nil, fmt.Errorf("profhw: census interval %d threshold %g: %w", s.Interval, s.Threshold, profhw.ErrConfig)
		}
		t := max(uint64(s.Threshold*float64(s.Interval)+0.5), 1)
		st[i] = &state{spec: s, p: profhw.NewPerfectInterval(t), row: CensusRow{Interval: s.Interval, Threshold: s.Threshold}}
	}
	end := func(x *state) {
		cands := x.p.Candidates()
		x.row.Intervals++
		var distinct uint64
		for k := profhw.Kind(0); k < profhw.NumKinds; k++ {
			distinct += x.p.Distinct(k)
		}
		x.row.Distinct += float64(distinct)
		x.row.Candidates += float64(len(cands))
		var covered uint64
		cur := make(map[profhw.Tuple]bool, len(cands))
		for _, c := range cands {
			cur[c] = true
			covered += x.p.Count(c)
		}
		x.row.CandidateShare += float64(covered) / float64(x.spec.Interval)
		if x.prev != nil {
			union, diff := len(x.prev), 0
			for c := range cur {
				if !x.prev[c] {
					union++
					diff++
				}
			}
			for c := range x.prev {
				if !cur[c] {
					diff++
				}
			}
			v := 0.0
			if union > 0 {
				v = 100 * float64(diff) / float64(union)
			}
			x.row.Variation = append(x.row.Variation, v)
		}
		x.prev = cur
		x.p.Reset()
	}
	_, err := src.Run(func(b profhw.Batch) error {
		for _, x := range st {
			ts := b.Tuples
			for len(ts) > 0 {
				k := min(uint64(len(ts)), x.spec.Interval-x.n)
				x.p.Feed(ts[:k])
				x.n += k
				ts = ts[k:]
				if x.n == x.spec.Interval {
					end(x)
					x.n = 0
				}
			}
		}
		return nil
	})
	rows := make([]CensusRow, len(st))
	for i, x := range st {
		r := x.row
		if r.Intervals > 0 {
			r.Distinct /= float64(r.Intervals)
			r.Candidates /= float64(r.Intervals)
			r.CandidateShare /= float64(r.Intervals)
		}
		slices.Sort(r.Variation)
		rows[i] = r
	}
	return rows, err
}

// WriteCensus writes census rows as a table: Figures 4 and 5 (distinct
// tuples and candidates per interval) and Figure 6 read at 25, 50 and 75%
// of the interval pairs.
func WriteCensus(w io.Writer, rows []CensusRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "guest\tinterval\tthreshold %\tintervals\tdistinct tuples\tcandidates\tcandidates' share %\tchange at 25%\tat 50%\tat 75%\t")
	for _, r := range rows {
		change := "-\t-\t-" // fewer than two intervals: nothing to compare
		if len(r.Variation) > 0 {
			change = fmt.Sprintf("%.0f\t%.0f\t%.0f", r.VariationAt(0.25), r.VariationAt(0.5), r.VariationAt(0.75))
		}
		fmt.Fprintf(tw, "%s\t%d\t%g\t%d\t%.0f\t%.1f\t%.1f\t%s\t\n", r.Guest, r.Interval, 100*r.Threshold, r.Intervals,
			r.Distinct, r.Candidates, 100*r.CandidateShare, change)
	}
	return tw.Flush()
}
