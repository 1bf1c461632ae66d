// Report: experiment results -> the paper's Tables 5, 6 and 7 as text (its figures are drawn by plot.go).

package placement

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"
	"time"
)

// WriteTable5 prints the chi-square statistics of every guest, one
// column per guest, the paper's Table 5 layout.
func WriteTable5(w io.Writer, rs []*Result) {
	if len(rs) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "\t")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t", r.Guest)
	}
	fmt.Fprintln(tw)
	for i, row := range rs[0].Table5 {
		fmt.Fprintf(tw, "%s\t", row.Row)
		for _, r := range rs {
			if i < len(r.Table5) && r.Table5[i].Row == row.Row && math.IsInf(r.Table5[i].Chi2, 1) {
				fmt.Fprint(tw, "no samples\t")
			} else if i < len(r.Table5) && r.Table5[i].Row == row.Row {
				fmt.Fprintf(tw, "%.0f\t", r.Table5[i].Chi2)
			} else {
				fmt.Fprint(tw, "-\t")
			}
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// WriteTable6 prints the simulated miss rates, one table per cache, the
// paper's Table 6 layout for Pettis-Hansen and the same columns for C3;
// then, where the results hold orders from time-based sets, one table
// per cache comparing the orders of each kind of summed sets.
func WriteTable6(w io.Writer, rs []*Result) {
	if len(rs) == 0 {
		return
	}
	get := func(r *Result, name string, ci int) string {
		for _, l := range r.Layouts {
			if l.Name == name {
				return fmt.Sprintf("%.3f", 100*l.MissRates[ci])
			}
		}
		return "-"
	}
	single := func(s [][3]float64, ci int) string {
		if ci >= len(s) {
			return "-\t-\t-"
		}
		return fmt.Sprintf("%.3f\t%.3f\t%.3f", 100*s[ci][0], 100*s[ci][1], 100*s[ci][2])
	}
	for ci, cfg := range rs[0].Caches {
		fmt.Fprintf(w, "%v instruction cache, test inputs, miss rate %%:\n", cfg)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		n := rs[0].Sets
		fmt.Fprintf(tw, "guest\toriginal\tPH 1 set max\tavg\tmin\t%d sets\tcomplete\tC3 1 set max\tavg\tmin\t%d sets\tcomplete\t\n", n, n)
		for _, r := range rs {
			sets := fmt.Sprintf("%dsets", r.Sets)
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Guest, get(r, "original", ci),
				single(r.SingleMissRate, ci), get(r, "ph-"+sets, ci), get(r, "ph-complete", ci),
				single(r.SingleMissRateC3, ci), get(r, "c3-"+sets, ci), get(r, "c3-complete", ci))
		}
		tw.Flush()
		fmt.Fprintln(w)
	}
	if len(rs[0].ClockSamplesPerSet) == 0 {
		return
	}
	kinds := []SetKind{Frequency, ClockRvdyn, ClockNative}
	for ci, cfg := range rs[0].Caches {
		fmt.Fprintf(w, "%v instruction cache, test inputs, miss rate %%, orders from %d summed sets of each kind:\n", cfg, rs[0].Sets)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprint(tw, "guest\toriginal\t")
		for _, alg := range []string{"PH", "C3"} {
			for _, k := range kinds {
				fmt.Fprintf(tw, "%s %s\t", alg, k)
			}
			fmt.Fprintf(tw, "%s complete\t", alg)
		}
		fmt.Fprintln(tw)
		for _, r := range rs {
			fmt.Fprintf(tw, "%s\t%s\t", r.Guest, get(r, "original", ci))
			for _, alg := range []string{"ph", "c3"} {
				for _, k := range kinds {
					name := fmt.Sprintf("%s-%s-%dsets", alg, k, r.Sets)
					if k == Frequency {
						name = fmt.Sprintf("%s-%dsets", alg, r.Sets)
					}
					fmt.Fprintf(tw, "%s\t", get(r, name, ci))
				}
				fmt.Fprintf(tw, "%s\t", get(r, alg+"-complete", ci))
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
		fmt.Fprintln(w)
	}
}

// WriteTable7 prints native execution times: per guest, each layout's
// median, its ratio to the original's, and the spread of its runs
// (Spread), so that a ratio can be read against the noise.
func WriteTable7(w io.Writer, guests []string, ts [][]NativeTime) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "guest\tlayout\tmedian\tvs original\truns: median [min-max] IQR\t")
	for i, g := range guests {
		for _, t := range ts[i] {
			fmt.Fprintf(tw, "%s\t%s\t%v\t%.3f\t%s\t\n", g, t.Layout, t.Median.Round(10*time.Microsecond),
				float64(t.Median)/float64(ts[i][0].Median), Spread(t.Samples))
		}
	}
	tw.Flush()
}

// Figure3Blocks is how many basic blocks PlotLayoutFigure3 draws at most (the
// paper shows the first 4000 of go's).
const Figure3Blocks = 4000
