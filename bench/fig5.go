// NET paper Figure 5: a delay-sweep Report with path profile based prediction and native runs in; Dynamo's figure as the paper draws it (speedup over native of NET and of path profile based prediction at each delay, per program) and its numbers beside the paper's out.

package bench

import (
	"fmt"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"rvdyn/internal/figure"
)

// HasFigure5 reports whether r can draw the NET paper's Figure 5: it has
// path profile based prediction runs and native runs to divide by.
func (r *Report) HasFigure5() bool {
	if !r.Paths {
		return false
	}
	for _, g := range r.Guests() {
		if r.Find(g, ModeNative, 0) != nil {
			return true
		}
	}
	return false
}

// fig5Speedup is native time / dynamo time of guest g at delay d with
// NET (path false) or path profile based prediction (path true); NaN if
// either is missing.
func (r *Report) fig5Speedup(g string, d int, path bool) float64 {
	m := r.Find(g, ModeDynamo, d)
	if path {
		m = r.FindPath(g, d)
	}
	return ratio(r.Find(g, ModeNative, 0), m)
}

// PlotFigure5 draws the NET paper's Figure 5 as the paper draws it:
// per program (and a geometric mean), one bar per prediction scheme
// (path profile based prediction, NET) and delay, the speedup over
// native execution (native time / dynamo time; 1 is native speed, drawn
// as a line). The paper's bars are Dynamo on a PA-8000; ours rvdyn on
// this machine. The format follows the extension of path.
func PlotFigure5(r *Report, path string) error {
	if !r.HasFigure5() {
		return fmt.Errorf("plot: Figure 5 needs path profile based prediction (--predict net,path) and native runs")
	}
	guests := r.Guests()
	labels := append(append([]string(nil), guests...), "geomean")
	p := plot.New()
	p.Title.Text = "NET paper Figure 5, ours: speedup over native of path profile based and NET prediction at each delay"
	p.Y.Label.Text = "speedup over native (native time / rvdyn time, x)"
	p.X.Label.Text = "guest program"
	n := 2 * len(r.Delays)
	// Each program's group of bars gets 80% of its slot: the canvas is
	// 12 inches, of which about 9 are the data area.
	w := vg.Length(0.8*9*72/float64(len(labels))) / vg.Length(n)
	i := 0
	for _, path := range []bool{true, false} {
		for _, d := range r.Delays {
			vals := make(plotter.Values, len(labels))
			var xs []float64
			for j, g := range guests {
				v := r.fig5Speedup(g, d, path)
				if !math.IsNaN(v) {
					xs = append(xs, v)
				} else {
					v = 0
				}
				vals[j] = v
			}
			vals[len(guests)] = GeoMean(xs)
			if math.IsNaN(vals[len(guests)]) {
				vals[len(guests)] = 0
			}
			bars, err := plotter.NewBarChart(vals, w)
			if err != nil {
				return err
			}
			bars.LineStyle.Width = 0
			bars.Color = plotutil.Color(i)
			bars.Offset = w * vg.Length(float64(i)-float64(n-1)/2)
			name := "NET"
			if path {
				name = "path profile"
			}
			p.Add(bars)
			p.Legend.Add(fmt.Sprintf("%s, delay %d", name, d), bars)
			i++
		}
	}
	one, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 1}, {X: float64(len(labels)) - 0.5, Y: 1}})
	if err != nil {
		return err
	}
	one.LineStyle.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(one, plotter.NewGrid())
	p.Legend.Add("native speed (1x)", one)
	p.NominalX(labels...)
	p.X.Tick.Label.Rotation = 0.5
	p.X.Tick.Label.XAlign = draw.XRight
	p.Y.Min = 0
	return figure.Save(p, 12*vg.Inch, 5*vg.Inch, path)
}

// NETPaperFigure5 is what the NET paper says of its Figure 5 (Duesterwald
// and Bala, sec. 6), the only numbers its text gives: with NET, Dynamo
// ran faster than native on every program of the figure, "averaging over
// 15%" (at the best delay, 50); with path profile based prediction only
// perl and deltablue ran faster than native.
const NETPaperFigure5 = "NET: faster than native on all of its programs, averaging over 15% (speedup > 1.15x, delay 50); path profile based prediction: faster than native only on perl and deltablue (2 of its programs)"

// WriteFigure5 writes Figure 5's numbers beside the paper's: per delay,
// the geometric mean speedup over native of NET and of path profile
// based prediction, and on how many guests each ran faster than native
// (the two quantities the paper's text gives).
func (r *Report) WriteFigure5(w io.Writer) {
	if !r.HasFigure5() {
		return
	}
	fmt.Fprintf(w, "\nNET paper Figure 5 (Dynamo on a PA-8000): %s.\n", NETPaperFigure5)
	fmt.Fprintln(w, "Ours (rvdyn on this machine), speedup over native = native time / rvdyn time:")
	fmt.Fprintf(w, "  %5s %14s %22s %14s %22s\n", "delay", "NET geomean", "NET faster than native", "path geomean", "path faster than native")
	for _, d := range r.Delays {
		var ns, ps []float64
		nf, pf, total := 0, 0, 0
		for _, g := range r.Guests() {
			n, p := r.fig5Speedup(g, d, false), r.fig5Speedup(g, d, true)
			if math.IsNaN(n) || math.IsNaN(p) {
				continue
			}
			total++
			ns, ps = append(ns, n), append(ps, p)
			if n > 1 {
				nf++
			}
			if p > 1 {
				pf++
			}
		}
		fmt.Fprintf(w, "  %5d %13.2fx %15d of %3d %13.2fx %15d of %3d\n", d, GeoMean(ns), nf, total, GeoMean(ps), pf, total)
	}
}
