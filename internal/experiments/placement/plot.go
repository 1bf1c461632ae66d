// Plots of the layout experiment: results in, the statistical-profiles paper's Figure 3 (profiles compared) and Figure 4 (key matching) out (SVG or PNG).

package placement

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"rvdyn/internal/figure"
	"rvdyn/layout"
)

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

// PlotLayoutFigure3 draws the paper's Figure 3 (sec. 4.2.1) for r: three
// profiles of the same training input, one panel each, x the basic
// block's index in the text section, y its weight: the complete profile
// (executions), one sample set and all sample sets summed (samp2bb
// weights: samples scaled by the block's size). The paper's statistical
// profiles are time-based; ours are the frequency-based sets (one sample
// per Period retired instructions).
func PlotLayoutFigure3(r *Result, path string) error {
	f := r.Figure3
	if f == nil || len(f.Complete) == 0 {
		return fmt.Errorf("plot: %s: no Figure 3 profiles in the result", r.Guest)
	}
	n := min(len(f.Complete), Figure3Blocks)
	var grid [][]*plot.Plot
	for _, panel := range []struct {
		title, ylabel string
		prof          layout.Profile
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
