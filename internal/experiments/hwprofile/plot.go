// Plots of the hardware compressors' experiments: results in, SVG or PNG figures out (the shapes of stratified Figures 4 and 7 and multi-hash Figures 10-12).

package hwprofile

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"rvdyn/internal/figure"
	"rvdyn/profhw"
)

// PlotExperiment draws res to path, as SVG or PNG by the file extension
// (.svg, .png). For each profile kind it draws a row of panels: the error
// of the compressors against tuples consumed (log scale, the shape of
// stratified Figure 7), their overhead, and the interval profilers' error
// split into false/neutral positives/negatives (stacked bars, the shape of
// multi-hash Figures 10-12). Panels with nothing to show are left out, and
// so are error points with nothing scored yet (Point.Scored == 0).
func PlotExperiment(res *Result, path string) error {
	var grid [][]*plot.Plot
	for k := profhw.Kind(0); k < profhw.NumKinds; k++ {
		if !res.Kinds.Has(k) {
			continue
		}
		var rows []Row
		var ivals []Row
		for _, r := range res.Rows {
			if r.Profile != k.String() {
				continue
			}
			if r.IntervalBreakdown != nil {
				ivals = append(ivals, r)
			} else {
				rows = append(rows, r)
			}
		}
		var line []*plot.Plot
		if len(rows) > 0 {
			e, err := seriesPlot(rows, fmt.Sprintf("%v profile: error", k), "error (%)", func(p Point) (float64, bool) { return 100 * p.Error, p.Scored > 0 })
			if err != nil {
				return err
			}
			o, err := seriesPlot(rows, fmt.Sprintf("%v profile: overhead", k), "overhead (% of instructions)", func(p Point) (float64, bool) { return 100 * p.Overhead, true })
			if err != nil {
				return err
			}
			line = append(line, e, o)
		}
		if len(ivals) > 0 {
			b, err := breakdownPlot(ivals, fmt.Sprintf("%v profile: interval error", k))
			if err != nil {
				return err
			}
			line = append(line, b)
		}
		if len(line) > 0 {
			grid = append(grid, line)
		}
	}
	if len(grid) == 0 {
		return fmt.Errorf("profhw: nothing to plot")
	}
	return saveGrid(grid, path)
}

func seriesPlot(rows []Row, title, ylabel string, y func(Point) (float64, bool)) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "profiling events (tuples)"
	p.Y.Label.Text = ylabel
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	drawn := 0
	for i, r := range rows {
		var xys plotter.XYs
		for _, pt := range r.Series {
			if v, ok := y(pt); ok && pt.Tuples > 0 {
				xys = append(xys, plotter.XY{X: float64(pt.Tuples), Y: v})
			}
		}
		if len(xys) == 0 {
			continue
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, fmt.Errorf("profhw: plotting %s: %w", r.Config, err)
		}
		l.Color = plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i / 7)
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(r.Config, l)
		drawn++
	}
	if drawn == 0 { // a log axis needs a positive range even when empty
		p.Title.Text += " (nothing scored)"
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 1000, 10000, 0, 1
	}
	return p, nil
}

func breakdownPlot(rows []Row, title string) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = "error (%)"
	parts := []struct {
		name string
		get  func(*profhw.IntervalBreakdown) float64
	}{
		{"false positive", func(b *profhw.IntervalBreakdown) float64 { return b.FalsePositive }},
		{"false negative", func(b *profhw.IntervalBreakdown) float64 { return b.FalseNegative }},
		{"neutral positive", func(b *profhw.IntervalBreakdown) float64 { return b.NeutralPositive }},
		{"neutral negative", func(b *profhw.IntervalBreakdown) float64 { return b.NeutralNegative }},
	}
	var names []string
	for _, r := range rows {
		names = append(names, ShortName(r.Config))
	}
	var below *plotter.BarChart
	for i, part := range parts {
		vs := make(plotter.Values, len(rows))
		for j, r := range rows {
			vs[j] = 100 * part.get(r.IntervalBreakdown)
		}
		b, err := plotter.NewBarChart(vs, vg.Points(14))
		if err != nil {
			return nil, fmt.Errorf("profhw: plotting %s: %w", part.name, err)
		}
		b.Color = plotutil.Color(i)
		b.LineStyle.Width = 0
		if below != nil {
			b.StackOn(below)
		}
		below = b
		p.Add(b)
		p.Legend.Add(part.name, b)
	}
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = 0.6
	p.X.Tick.Label.XAlign = draw.XRight
	return p, nil
}

// PlotMonteCarlo draws Monte Carlo rows to path (.svg or .png): mean error
// in percent against stream length, one line per sampler, the shape of
// Figure 4 of the stratified paper.
func PlotMonteCarlo(rows []MCRow, path string) error {
	p := plot.New()
	p.Title.Text = "Estimating the frequency of a tuple (t = 0.3N)"
	p.X.Label.Text = "stream length N (tuples)"
	p.Y.Label.Text = "mean error (%)"
	var order []string
	series := map[string]plotter.XYs{}
	for _, r := range rows {
		if _, ok := series[r.Sampler]; !ok {
			order = append(order, r.Sampler)
		}
		series[r.Sampler] = append(series[r.Sampler], plotter.XY{X: float64(r.N), Y: 100 * r.MeanError})
	}
	for i, name := range order {
		l, s, err := plotter.NewLinePoints(series[name])
		if err != nil {
			return fmt.Errorf("profhw: plotting %s: %w", name, err)
		}
		l.Color, s.Color = plotutil.Color(i), plotutil.Color(i)
		s.Shape = plotutil.Shape(i)
		p.Add(l, s)
		p.Legend.Add(name, l, s)
	}
	return saveGrid([][]*plot.Plot{{p}}, path)
}

// saveGrid draws a grid of plots onto one canvas (5 by 4 inches a tile)
// and writes it to path (.svg or .png).
func saveGrid(grid [][]*plot.Plot, path string) error {
	if err := (figure.Grid{Plots: grid}).Save(path); err != nil {
		return fmt.Errorf("profhw: %w", err)
	}
	return nil
}
