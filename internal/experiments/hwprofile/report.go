// Text reports: experiment and Monte Carlo results in, aligned tables out (text/tabwriter).

package hwprofile

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"rvdyn/profhw"
)

// WriteTable writes one line per row of res: configuration, profile,
// error and overhead in percent, messages, the number of tuples the
// invariance error is computed over ("-" for the error if none passed the
// filters), and for interval profilers the
// four error categories, the measured false-positive rate and the bound of
// multi-hash section 6.2, the largest per-interval error and the number of
// intervals above SpikeError (Figure 13).
func WriteTable(w io.Writer, res *Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "config\tprofile\terror%%\toverhead%%\tmessages\tselected\tFP%%\tFN%%\tNP%%\tNN%%\tintervals\tFP rate\tFP bound\tmax interval%%\tspikes\n")
	for _, r := range res.Rows {
		errCell := fmt.Sprintf("%.2f", 100*r.Error)
		sel := ""
		if b := r.IntervalBreakdown; b != nil {
			if b.Intervals == 0 {
				errCell = "-" // no interval had a candidate
			}
		} else {
			sel = fmt.Sprint(r.Selected)
			if r.Selected == 0 {
				errCell = "-" // no tuple passed the filters
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.3f\t%d\t%s\t", r.Config, r.Profile, errCell, 100*r.Overhead, r.Messages, sel)
		if b := r.IntervalBreakdown; b != nil {
			fmt.Fprintf(tw, "%.2f\t%.2f\t%.2f\t%.2f\t%d\t%.2e\t%.2e\t%.2f\t%d\n",
				100*b.FalsePositive, 100*b.FalseNegative, 100*b.NeutralPositive, 100*b.NeutralNegative,
				b.Intervals, b.FalsePositiveRate, b.FalsePositiveBound, 100*b.MaxError, b.Spikes)
		} else {
			fmt.Fprintf(tw, "\t\t\t\t\t\t\t\t\n")
		}
	}
	return tw.Flush()
}

// WriteProgress writes, for each profile kind, the error (and then the
// overhead) of every configuration at every checkpoint, in percent: the
// numbers behind Figure 7 of the stratified paper. An error is "-" while
// nothing can be scored (no tuple passed the filters, no interval had a
// candidate).
func WriteProgress(w io.Writer, res *Result) error {
	for k := profhw.Kind(0); k < profhw.NumKinds; k++ {
		if !res.Kinds.Has(k) {
			continue
		}
		var rows []Row
		for _, r := range res.Rows {
			if r.Profile == k.String() {
				rows = append(rows, r)
			}
		}
		if len(rows) == 0 {
			continue
		}
		for _, what := range []string{"error", "overhead"} {
			fmt.Fprintf(w, "\n%v profile: %s (%%) as the stream progresses\n", k, what)
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintf(tw, "tuples\tinstructions\t")
			for _, r := range rows {
				fmt.Fprintf(tw, "%s\t", ShortName(r.Config))
			}
			fmt.Fprintln(tw)
			var ticks []uint64
			for _, r := range rows {
				for _, p := range r.Series {
					ticks = append(ticks, p.Tuples)
				}
			}
			slices.Sort(ticks)
			ticks = slices.Compact(ticks)
			for _, t := range ticks {
				var instr uint64
				cells := ""
				for _, r := range rows {
					i := slices.IndexFunc(r.Series, func(p Point) bool { return p.Tuples == t })
					if i < 0 {
						cells += "\t"
						continue
					}
					p := r.Series[i]
					instr = p.Instructions
					v := p.Error
					if what == "overhead" {
						v = p.Overhead
					} else if p.Scored == 0 {
						cells += "-\t" // nothing to score yet
						continue
					}
					cells += fmt.Sprintf("%.2f\t", 100*v)
				}
				fmt.Fprintf(tw, "%d\t%d\t%s\n", t, instr, cells)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// WriteMonteCarlo writes Monte Carlo rows as a table: one line per stream
// length N, one column per sampler, mean error in percent.
func WriteMonteCarlo(w io.Writer, rows []MCRow) error {
	var samplers []string
	var ns []int
	cell := map[[2]any]float64{}
	for _, r := range rows {
		if !slices.Contains(samplers, r.Sampler) {
			samplers = append(samplers, r.Sampler)
		}
		if !slices.Contains(ns, r.N) {
			ns = append(ns, r.N)
		}
		cell[[2]any{r.Sampler, r.N}] = r.MeanError
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "N\t")
	for _, s := range samplers {
		fmt.Fprintf(tw, "%s\t", s)
	}
	fmt.Fprintln(tw)
	for _, n := range ns {
		fmt.Fprintf(tw, "%d\t", n)
		for _, s := range samplers {
			fmt.Fprintf(tw, "%.2f\t", 100*cell[[2]any{s, n}])
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// ShortName abbreviates an interval profiler's notation for axis labels,
// e.g. "multihash:tables=4,...,cu=1,reset=0" -> "MH4 C1R0"; other
// notations are returned unchanged.
func ShortName(notation string) string {
	c, err := profhw.ParseConfig(notation)
	if err != nil || c.Kind != profhw.ConfigInterval {
		return notation
	}
	ic := c.Interval
	s := fmt.Sprintf("MH%d C%dR%d", ic.Tables, b2i(ic.Conservative), b2i(ic.Reset))
	if ic.Interval != profhw.DefaultInterval.Interval || ic.Threshold != profhw.DefaultInterval.Threshold {
		s += fmt.Sprintf(" %d/%g%%", ic.Interval, 100*ic.Threshold)
	}
	if ic.Entries != profhw.DefaultInterval.Entries {
		s += fmt.Sprintf(" Z%d", ic.Entries)
	}
	if !ic.Retain {
		s += " P0"
	}
	return s
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
