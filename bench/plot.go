// Plots: a delay-sweep Report -> speedup vs prediction delay, one line per guest (SVG or PNG).

package bench

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// PlotSweep draws the speedup over the interpreter against the prediction
// delay (log scale; delay 0 is drawn at 0.5), one line per guest plus the
// geometric mean, like Figure 5 of the NET paper. The format follows the
// extension of path: .svg or .png.
func PlotSweep(r *Report, path string) error {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".svg" && ext != ".png" {
		return fmt.Errorf("plot %s: want a .svg or .png file", path)
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
	return p.Save(8*vg.Inch, 5*vg.Inch, path)
}
