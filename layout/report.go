// Report: experiment results -> the paper's Tables 5, 6 and 7 as text, and Figure 4 (key matching) as a plot.

package layout

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"rvdyn/internal/figure"
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

// PlotKeyMatch draws Figure 4: for each guest, the key-matching score
// f(n) of the summed sample sets against the complete profile, with the
// perfect score f(n) = n for reference; n runs to limit (0: every
// executed block).
func PlotKeyMatch(rs []*Result, limit int, path string) error {
	p := plot.New()
	p.Title.Text = "Key matching: summed sample sets vs complete profile"
	p.X.Label.Text = "n (top n basic blocks)"
	p.Y.Label.Text = "f(n) (blocks in the top n of both)"
	var args []any
	n := 0
	for _, r := range rs {
		k := r.KeyMatch
		if limit > 0 && len(k) > limit {
			k = k[:limit]
		}
		n = max(n, len(k))
		pts := make(plotter.XYs, len(k))
		for i, v := range k {
			pts[i] = plotter.XY{X: float64(i + 1), Y: float64(v)}
		}
		args = append(args, r.Guest, pts)
	}
	args = append(args, "f(n) = n", plotter.XYs{{X: 1, Y: 1}, {X: float64(n), Y: float64(n)}})
	if err := plotutil.AddLines(p, args...); err != nil {
		return err
	}
	return figure.Save(p, 6*vg.Inch, 4.5*vg.Inch, path)
}

// Figure3Blocks is how many basic blocks PlotFigure3 draws at most (the
// paper shows the first 4000 of go's).
const Figure3Blocks = 4000

// PlotFigure3 draws the paper's Figure 3 (sec. 4.2.1) for r: three
// profiles of the same training input, one panel each, x the basic
// block's index in the text section, y its weight: the complete profile
// (executions), one sample set and all sample sets summed (samp2bb
// weights: samples scaled by the block's size). The paper's statistical
// profiles are time-based; ours are the frequency-based sets (one sample
// per Period retired instructions).
func PlotFigure3(r *Result, path string) error {
	f := r.Figure3
	if f == nil || len(f.Complete) == 0 {
		return fmt.Errorf("plot: %s: no Figure 3 profiles in the result", r.Guest)
	}
	n := min(len(f.Complete), Figure3Blocks)
	var grid [][]*plot.Plot
	for _, panel := range []struct {
		title, ylabel string
		prof          Profile
	}{
		{fmt.Sprintf("%s: complete profile (training input %v)", r.Guest, r.Train[1:]), "executions (count)", f.Complete},
		{fmt.Sprintf("%s: statistical profile, 1 sample set (one sample per %d instructions)", r.Guest, r.Period), "samp2bb weight (samples / block size)", f.OneSet},
		{fmt.Sprintf("%s: statistical profile, %d sample sets summed", r.Guest, f.Sets), "samp2bb weight (samples / block size)", f.AllSets},
	} {
		p := plot.New()
		p.Title.Text = panel.title
		p.X.Label.Text = "basic block index in the text section (blocks)"
		p.Y.Label.Text = panel.ylabel
		pts := make(plotter.XYs, n)
		for i := range n {
			pts[i] = plotter.XY{X: float64(i), Y: panel.prof[i]}
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		l.Color = plotutil.Color(0)
		l.Width = vg.Points(0.6)
		p.Add(l)
		p.X.Min, p.Y.Min = 0, 0
		grid = append(grid, []*plot.Plot{p})
	}
	return figure.Grid{Plots: grid, Width: 9 * vg.Inch, Height: 7.5 * vg.Inch}.Save(path)
}
