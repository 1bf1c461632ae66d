// Plots of the NET paper's prediction experiment: analyses of guest runs in, Figure 2 (hit rate vs profiled flow), Figure 3 (noise rate) and Figure 4 (counter space) out (SVG or PNG).

package prediction

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

// PlotPrediction draws Figure 2 of the NET paper for the analyses of the
// named guests (names[i] labels as[i]): hit rate against profiled flow,
// both in percent, one line per guest whose points are the prediction
// delays (delay 0 at (0, 100)), path profile prediction in the top row
// and NET in the bottom one; the right column zooms into the upper left
// 10% square. The format follows the extension of path: .svg or .png.
func PlotPrediction(names []string, as []*net.Analysis, path string) error {
	return plotRates(names, as, path, "hit rate", 100, func(r *net.Result) float64 { return r.HitRate }, 90, 100)
}

// PlotNoise draws Figure 3 of the NET paper: the noise rate (percent of
// the hot flow, section 3) against profiled flow, laid out as
// PlotPrediction's Figure 2 (path profile prediction on top, NET below,
// the right column zoomed into profiled flow 0-10%). Noise may exceed 100%
// of the hot flow at short delays; the y axis then grows to fit. Only the
// analysed delays are drawn (no point is assumed for delay 0).
func PlotNoise(names []string, as []*net.Analysis, path string) error {
	return plotRates(names, as, path, "noise rate", -1, func(r *net.Result) float64 { return r.NoiseRate }, 0, 100)
}

// plotRates draws one rate (y, percent of the hot flow) against profiled
// flow for each scheme and guest, in a 2x2 grid: schemes by row, full
// range and zoom (profiled flow 0-10%, y from zoomMin to zoomMax) by
// column. y0 >= 0 adds the point (0, y0) for delay 0 to every line.
func plotRates(names []string, as []*net.Analysis, path, what string, y0 float64, y func(*net.Result) float64, zoomMin, zoomMax float64) error {
	grid := make([][]*plot.Plot, net.NumSchemes)
	for s := range net.NumSchemes {
		for zoom := range 2 {
			p := plot.New()
			p.Title.Text = fmt.Sprintf("%v prediction: %s", s, what)
			p.X.Label.Text = "profiled flow (% of all path executions)"
			p.Y.Label.Text = what + " (% of the hot flow)"
			if zoom == 1 {
				p.Title.Text += " (zoom: profiled flow 0-10%)"
			}
			var lines []any
			for i, a := range as {
				var pts plotter.XYs
				if y0 >= 0 {
					pts = append(pts, plotter.XY{X: 0, Y: y0})
				}
				for _, d := range a.Delays() {
					// An analysis saved before a scheme existed (NET once)
					// has no result for it.
					if r := a.Find(s, d); r != nil {
						pts = append(pts, plotter.XY{X: r.ProfiledFlow, Y: y(r)})
					}
				}
				lines = append(lines, names[i], pts)
			}
			if err := plotutil.AddLinePoints(p, lines...); err != nil {
				return err
			}
			// After Add, which widened the axes to the data.
			p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 100, 0, math.Max(100, p.Y.Max)
			if zoom == 1 {
				p.X.Max, p.Y.Min, p.Y.Max = 10, zoomMin, math.Max(zoomMax, p.Y.Max)
			}
			grid[s] = append(grid[s], p)
		}
	}
	return figure.Grid{Plots: grid, Width: 11 * vg.Inch, Height: 8 * vg.Inch, Gap: 6 * vg.Millimeter}.Save(path)
}

// PlotCounterSpace draws Figure 4 of the NET paper: NET's counter space
// (distinct path heads) as a percentage of path profile prediction's
// (distinct paths), one bar per guest and a last bar for the average
// (the paper's "average" bar; Table 2 gives its inputs).
func PlotCounterSpace(names []string, as []*net.Analysis, path string) error {
	if len(as) == 0 {
		return fmt.Errorf("plot: no guests")
	}
	vals := make(plotter.Values, 0, len(as)+1)
	labels := make([]string, 0, len(as)+1)
	sum := 0.0
	for i, a := range as {
		r := CounterRatio(a.Summary)
		vals, labels = append(vals, r), append(labels, names[i])
		sum += r
	}
	vals, labels = append(vals, sum/float64(len(as))), append(labels, "average")
	p := plot.New()
	p.Title.Text = "NET counter space as % of path profile prediction's (NET paper Figure 4)"
	p.Y.Label.Text = "counters: unique path heads / dynamic paths (%)"
	bars, err := plotter.NewBarChart(vals, vg.Points(18))
	if err != nil {
		return err
	}
	bars.Color = plotutil.Color(0)
	p.Add(bars)
	p.NominalX(labels...)
	p.Y.Min, p.Y.Max = 0, 100
	return figure.Save(p, 8*vg.Inch, 5*vg.Inch, path)
}
