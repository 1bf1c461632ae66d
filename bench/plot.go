// Plots: a delay-sweep Report -> speedup vs prediction delay; NET prediction analyses -> hit rate vs profiled flow (SVG or PNG).

package bench

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"rvdyn/internal/figure"
	"rvdyn/net"
)

// PlotSweep draws the speedup over the interpreter against the prediction
// delay (log scale; delay 0 is drawn at 0.5), one line per guest plus the
// geometric mean, like Figure 5 of the NET paper. The format follows the
// extension of path: .svg or .png.
func PlotSweep(r *Report, path string) error {
	if err := figure.CheckPath(path); err != nil {
		return fmt.Errorf("plot %w", err)
	}
	if len(r.Delays) < 2 {
		return fmt.Errorf("plot: need a delay sweep (two or more --delays)")
	}
	p := plot.New()
	p.Title.Text = "rvdyn: speedup over the interpreter vs NET prediction delay"
	p.X.Label.Text = "prediction delay (tau)"
	p.Y.Label.Text = "speedup (interp time / dynamo time)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Min = 0 // speedups from zero: the legend goes in the empty lower part
	p.Legend.Top = false
	x := func(d int) float64 { return math.Max(float64(d), 0.5) }
	var lines []any
	for _, g := range r.Guests() {
		in := r.Find(g, ModeInterp, 0)
		var pts plotter.XYs
		for _, d := range r.Delays {
			if s := ratio(in, r.Find(g, ModeDynamo, d)); !math.IsNaN(s) {
				pts = append(pts, plotter.XY{X: x(d), Y: s})
			}
		}
		if len(pts) > 0 {
			lines = append(lines, g, pts)
		}
	}
	var geo plotter.XYs
	for _, d := range r.Delays {
		if s := GeoMean(r.Speedups(d)); !math.IsNaN(s) {
			geo = append(geo, plotter.XY{X: x(d), Y: s})
		}
	}
	lines = append(lines, "geomean", geo)
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return err
	}
	return figure.Save(p, 8*vg.Inch, 5*vg.Inch, path)
}

// PlotPrediction draws Figure 2 of the NET paper for the analyses of the
// named guests (names[i] labels as[i]): hit rate against profiled flow,
// both in percent, one line per guest whose points are the prediction
// delays (delay 0 at (0, 100)), path profile prediction in the top row
// and NET in the bottom one; the right column zooms into the upper left
// 10% square. The format follows the extension of path: .svg or .png.
func PlotPrediction(names []string, as []*net.Analysis, path string) error {
	grid := make([][]*plot.Plot, net.NumSchemes)
	for s := range net.NumSchemes {
		for zoom := range 2 {
			p := plot.New()
			p.Title.Text = fmt.Sprintf("%v prediction: hit rate", s)
			p.X.Label.Text = "profiled flow (% of all path executions)"
			p.Y.Label.Text = "hit rate (% of the hot flow)"
			if zoom == 1 {
				p.Title.Text += " (zoom into the upper left 10%)"
			}
			p.Legend.Top, p.Legend.Left = false, true
			var lines []any
			for i, a := range as {
				pts := plotter.XYs{{X: 0, Y: 100}} // delay 0
				for _, d := range a.Delays() {
					r := a.Find(s, d)
					pts = append(pts, plotter.XY{X: r.ProfiledFlow, Y: r.HitRate})
				}
				lines = append(lines, names[i], pts)
			}
			if err := plotutil.AddLinePoints(p, lines...); err != nil {
				return err
			}
			// After Add, which widens the axes to the data.
			p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 100, 0, 100
			if zoom == 1 {
				p.X.Max, p.Y.Min = 10, 90
			}
			grid[s] = append(grid[s], p)
		}
	}
	return figure.Grid{Plots: grid, Width: 11 * vg.Inch, Height: 8 * vg.Inch, Gap: 6 * vg.Millimeter}.Save(path)
}
