// Plots: a delay-sweep Report -> speedup vs prediction delay (SVG or PNG).

package bench

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"rvdyn/internal/figure"
)

// PlotSweep draws a delay sweep. A report with path profile based
// prediction and native runs gets the NET paper's Figure 5 as the paper
// draws it (PlotFigure5). Otherwise it draws our own view: the speedup
// over the interpreter against the prediction delay (log scale; delay 0
// is drawn at 0.5), one line per guest plus the geometric mean. The
// format follows the extension of path: .svg or .png.
func PlotSweep(r *Report, path string) error {
	if err := figure.CheckPath(path); err != nil {
		return fmt.Errorf("plot %w", err)
	}
	if r.HasFigure5() {
		return PlotFigure5(r, path)
	}
	if len(r.Delays) < 2 {
		return fmt.Errorf("plot: need a delay sweep (two or more --delays)")
	}
	p := plot.New()
	p.Title.Text = "rvdyn (ours, not the NET paper's Figure 5): speedup over the interpreter vs NET prediction delay"
	p.X.Label.Text = "prediction delay tau (executions of a trace head)"
	p.Y.Label.Text = "speedup (interp time / dynamo time)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Min = 0 // speedups from zero
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
