// Selection comparison: a Report with several trace selection schemes -> the untimed metrics runs, the per-scheme table (speedups, counter space, hit rate, noise, missed-opportunity cost, main-thread selection time) and its plot.

package bench

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"rvdyn"
	"rvdyn/bench/corpus"
	"rvdyn/internal/figure"
	"rvdyn/net"
)

// selects returns the schemes to measure besides NET, checked and without
// duplicates, path first when PathPrediction asks for it.
func (cfg Config) selects() ([]string, error) {
	var out []string
	if cfg.PathPrediction {
		out = append(out, "path")
	}
	for _, s := range cfg.Selects {
		sel, err := rvdyn.ParseScheme(s)
		if err != nil {
			return nil, err
		}
		if name := sel.String(); name != "net" && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out, nil
}

// scoreSelections runs every dynamo measurement of a scheme once more,
// untimed, with trace metrics on, and keeps the scores and the selection
// time in the measurement.
func scoreSelections(cfg Config, rep *Report, images map[string][]byte, size corpus.Size, log io.Writer) error {
	for _, m := range rep.Measurements {
		if m.Mode != ModeDynamo || m.Disabled != "" || m.Specialize != "" {
			continue
		}
		opts := rvdyn.Options{}
		if cfg.Options != nil {
			opts = *cfg.Options
		}
		opts.Mode, opts.NET.Delay, opts.Args = rvdyn.ModeDynamo, net.DelayOf(m.Delay), corpus.Args(m.Guest, size)
		if m.Predict != "" {
			sel, err := rvdyn.ParseScheme(m.Predict)
			if err != nil {
				return err
			}
			opts.Select.Scheme = sel
		}
		opts.Select.Metrics = true
		var out bytes.Buffer
		opts.Stdout, opts.Stderr = &out, io.Discard
		vm, err := rvdyn.New(images[m.Guest], opts)
		if err != nil {
			return err
		}
		_, err = vm.Run()
		st := vm.Stats()
		vm.Close()
		if err != nil {
			return fmt.Errorf("%s (%s, metrics run): %w", m.Guest, label(m), err)
		}
		m.Metrics, m.SelectSecs = st.TraceMetrics, st.SelectTime.Seconds()
		if t := m.Metrics; t != nil {
			fmt.Fprintf(log, "metrics   %-10s %-14s hit %6.2f%%  noise %6.2f%%  moc %5.2f%%  select %.4fs\n",
				m.Guest, label(m), t.HitRate, t.NoiseRate, t.MOCRate, m.SelectSecs)
		}
	}
	return nil
}

// schemes returns "net" followed by the report's other schemes.
func (r *Report) schemes() []string {
	out := []string{"net"}
	if r.Paths && !slices.Contains(r.Selects, "path") {
		out = append(out, "path")
	}
	return append(out, r.Selects...)
}

// metricCell formats a trace metric of m, "-" without a metrics run.
func metricCell(m *Measurement, f func(*rvdyn.TraceMetrics) float64) string {
	if m == nil || m.Metrics == nil || m.Metrics.Error != "" {
		return "-"
	}
	return fmt.Sprintf("%.2f", f(m.Metrics))
}

// WriteSelection writes the selection comparison at the first delay: per
// guest and scheme, median seconds, speedup over the interpreter and over
// native code (native time / dynamo time: above 1 is faster than the
// native build), counter space, and, from the metrics runs, hit rate,
// noise and missed-opportunity cost (% of the hot flow) and main-thread
// selection time in milliseconds; then geometric means of the speedups
// per scheme.
func (r *Report) WriteSelection(w io.Writer) error {
	d := r.Delays[0]
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "guest\tscheme\tseconds\t/interp\t/native\tcounters\tfragments\thit %%\tnoise %%\tMOC %%\tselect ms\t\n")
	geoI, geoN := map[string][]float64{}, map[string][]float64{}
	for _, g := range r.Guests() {
		in, nat := r.Find(g, ModeInterp, 0), r.Find(g, ModeNative, 0)
		for _, s := range r.schemes() {
			m := r.FindSelect(g, s, d)
			if m == nil {
				continue
			}
			si, sn := ratio(in, m), ratio(nat, m)
			geoI[s], geoN[s] = append(geoI[s], si), append(geoN[s], sn)
			sel := "-"
			if m.Metrics != nil {
				sel = fmt.Sprintf("%.2f", 1000*m.SelectSecs)
			}
			fmt.Fprintf(tw, "%s\t%s\t%.3f\t%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t\n", g, s, m.Median,
				fmtF(si, "%.2fx"), fmtF(sn, "%.2fx"), m.Counters, m.Fragments,
				metricCell(m, func(t *rvdyn.TraceMetrics) float64 { return t.HitRate }),
				metricCell(m, func(t *rvdyn.TraceMetrics) float64 { return t.NoiseRate }),
				metricCell(m, func(t *rvdyn.TraceMetrics) float64 { return t.MOCRate }), sel)
		}
	}
	for _, s := range r.schemes() {
		fmt.Fprintf(tw, "geomean\t%s\t\t%s\t%s\t\t\t\t\t\t\t\n", s, fmtF(GeoMean(geoI[s]), "%.2fx"), fmtF(GeoMean(geoN[s]), "%.2fx"))
	}
	return tw.Flush()
}

// PlotSelection draws the selection comparison: per guest, one bar per
// scheme, the speedup over the interpreter at the first delay. The format
// follows the extension of path: .svg or .png.
func PlotSelection(r *Report, path string) error {
	if err := figure.CheckPath(path); err != nil {
		return fmt.Errorf("plot %w", err)
	}
	d := r.Delays[0]
	guests := r.Guests()
	p := plot.New()
	p.Title.Text = fmt.Sprintf("rvdyn: speedup over the interpreter by trace selection scheme (delay %d)", d)
	p.Y.Label.Text = "speedup (interp time / dynamo time)"
	schemes := r.schemes()
	w := vg.Points(60 / float64(len(schemes)+1))
	for i, s := range schemes {
		vals := make(plotter.Values, len(guests))
		for j, g := range guests {
			v := ratio(r.Find(g, ModeInterp, 0), r.FindSelect(g, s, d))
			if math.IsNaN(v) {
				v = 0
			}
			vals[j] = v
		}
		bars, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return err
		}
		bars.Color = plotutil.Color(i)
		bars.LineStyle.Width = 0
		bars.Offset = w * vg.Length(float64(i)-float64(len(schemes)-1)/2)
		p.Add(bars)
		p.Legend.Add(s, bars)
	}
	p.NominalX(guests...)
	return figure.Save(p, 10*vg.Inch, 5*vg.Inch, path)
}
