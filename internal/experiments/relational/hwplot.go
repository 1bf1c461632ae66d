// Plots of the RPA hardware model: an RPAHWReport in; Figure 7 (resource occupancy histograms) and Figure 8a/8b (stalls and slow-down against profile networks, with the paper's stated points) of the relational-profiling paper, from the model, out (SVG or PNG).

package relational

import (
	"cmp"
	"fmt"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"rvdyn/internal/figure"
	"rvdyn/profhw/rpa"
)

// rpaHWMaxX is the largest "at least x" Figure 7 draws.
const rpaHWMaxX = 12

// PlotRPAHWFigure7 draws Figure 7 from the model: for the three
// programs that load the hardware most (cycles with at least two buffers
// in use), as the paper draws its three most loaded benchmarks, the
// percentage of cycles in which at least x profile buffers (left) and x
// profile networks (right) were in use, 32 of each, edge profiling at
// 1/256 and every reference store.
func PlotRPAHWFigure7(r *RPAHWReport, path string) error {
	if len(r.Guests) == 0 {
		return fmt.Errorf("plot: no programs")
	}
	load := func(g *RPAHWGuest) float64 {
		h := g.Rates[len(g.Rates)-1].BuffersAtLeast
		if len(h) > 2 {
			return h[2]
		}
		return 0
	}
	gs := slices.Clone(r.Guests)
	slices.SortStableFunc(gs, func(a, b *RPAHWGuest) int { return cmp.Compare(load(b), load(a)) })
	gs = gs[:min(3, len(gs))]
	var grid [][]*plot.Plot
	for _, g := range gs {
		res := g.Rates[len(g.Rates)-1]
		var row []*plot.Plot
		for _, side := range []struct {
			what string
			h    []float64
		}{{"profile buffers", res.BuffersAtLeast}, {"profile networks (instructions in flight)", res.NetworksAtLeast}} {
			p := plot.New()
			p.Title.Text = fmt.Sprintf("MODEL, %s: %s in use", g.Program, side.what)
			p.X.Label.Text = "at least x in use (x)"
			p.Y.Label.Text = "cycles (%)"
			vals := make(plotter.Values, rpaHWMaxX)
			for x := 1; x <= rpaHWMaxX; x++ {
				if x < len(side.h) {
					vals[x-1] = side.h[x]
				}
			}
			b, err := plotter.NewBarChart(vals, vg.Points(12))
			if err != nil {
				return err
			}
			b.Color, b.LineStyle.Width = plotutil.Color(0), 0
			p.Add(b, plotter.NewGrid())
			var names []string
			for x := 1; x <= rpaHWMaxX; x++ {
				names = append(names, fmt.Sprint(x))
			}
			p.NominalX(names...)
			p.X.Label.Text = "x (buffers or networks)"
			p.Y.Min = 0
			row = append(row, p)
		}
		grid = append(grid, row)
	}
	return figure.Grid{Plots: grid, Width: 10 * vg.Inch, Height: vg.Length(len(grid)) * 2.6 * vg.Inch}.Save(path)
}

// PlotRPAHWFigure8 draws Figure 8a and 8b from the model: per program,
// the percentage of cycles dispatch stalled (a) and the slow-down upper
// bound (b) against the number of profile networks (8 buffers, edge
// profiling at 1/256 and every reference store), with the points the
// paper's text gives for strata and jack in (a).
func PlotRPAHWFigure8(r *RPAHWReport, path string) error {
	if len(r.Guests) == 0 {
		return fmt.Errorf("plot: no programs")
	}
	var plots []*plot.Plot
	for _, panel := range []struct {
		title, ylabel string
		f             func(rpa.HWResult) float64
		paper         bool
	}{
		{"(a) MODEL: dispatch stalled by the profiling hardware", "dispatch stalled (% of cycles)", rpa.HWResult.StallPercent, true},
		{"(b) MODEL: slow-down, upper bound (no stall hidden)", "slow-down (% of cycles without stalls)", rpa.HWResult.SlowdownPercent, false},
	} {
		p := plot.New()
		p.Title.Text = panel.title
		p.X.Label.Text = "profile networks (count)"
		p.Y.Label.Text = panel.ylabel
		var lines []any
		for _, g := range r.Guests {
			var pts plotter.XYs
			for k, res := range g.Networks {
				pts = append(pts, plotter.XY{X: float64(k + 1), Y: panel.f(res)})
			}
			lines = append(lines, "ours (model): "+g.Program, pts)
		}
		if panel.paper {
			lines = append(lines, "paper: strata", plotter.XYs{{X: 1, Y: 3.8}, {X: 4, Y: 0.5}},
				"paper: jack", plotter.XYs{{X: 1, Y: 12.4}, {X: 4, Y: 1.7}})
		}
		if err := plotutil.AddLinePoints(p, lines...); err != nil {
			return err
		}
		p.X.Tick.Marker = plot.ConstantTicks{{Value: 1, Label: "1"}, {Value: 2, Label: "2"}, {Value: 3, Label: "3"}, {Value: 4, Label: "4"}}
		p.Y.Min = 0
		plots = append(plots, p)
	}
	return figure.Grid{Plots: [][]*plot.Plot{plots}, Width: 12 * vg.Inch, Height: 4.5 * vg.Inch}.Save(path)
}
