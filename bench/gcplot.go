// Plot: a collector GCReport -> GC overhead per program and collector mode, one panel per execution mode (SVG or PNG).

package bench

import (
	"encoding/json"
	"fmt"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"rvdyn/internal/figure"
)

// ReadGCJSON reads a report written by GCReport.WriteJSON.
func ReadGCJSON(path string) (*GCReport, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r GCReport
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// PlotGC draws, for each execution mode of the report, a bar chart of the
// guest thread's CPU-time overhead against the no-GC baseline (percent;
// "rpa" against "nogc-rpa"), one group of bars per program and one bar per
// collecting configuration. The format follows the extension of path.
func PlotGC(r *GCReport, path string) error {
	if err := figure.CheckPath(path); err != nil {
		return fmt.Errorf("plot %w", err)
	}
	var execs, programs, gcs []string
	add := func(list *[]string, seen map[string]bool, s string) {
		if !seen[s] {
			seen[s] = true
			*list = append(*list, s)
		}
	}
	se, sp, sg := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, m := range r.Measurements {
		add(&execs, se, m.Exec)
		add(&programs, sp, m.Program)
		if b, _ := splitEdge(m.GC); b != GCNoGC && b != GCNoGCRPA {
			add(&gcs, sg, m.GC)
		}
	}
	find := func(p, e, g string) *GCMeasurement {
		for _, m := range r.Measurements {
			if m.Program == p && m.Exec == e && m.GC == g && m.Error == "" {
				return m
			}
		}
		return nil
	}
	var plots []*plot.Plot
	w := vg.Points(4)
	for _, e := range execs {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s mode: guest-thread CPU time vs no GC, rpa vs nogc-rpa (%s size, %d KiB between collections)", e, r.Size, r.IntervalKB)
		p.Y.Label.Text = "GC overhead, % of the no-GC time"
		p.Legend.Top = true
		for i, g := range gcs {
			var vals plotter.Values
			for _, prog := range programs {
				v := 0.0
				if m := find(prog, e, g); m != nil {
					v = m.ThreadOverhead
				}
				vals = append(vals, v)
			}
			b, err := plotter.NewBarChart(vals, w)
			if err != nil {
				return err
			}
			b.LineStyle.Width = 0
			b.Color = plotutil.Color(i)
			b.Offset = w * vg.Length(float64(i)-float64(len(gcs)-1)/2)
			p.Add(b)
			p.Legend.Add(g, b)
		}
		p.Add(plotter.NewGrid())
		p.NominalX(programs...)
		plots = append(plots, p)
	}
	if len(plots) == 0 {
		return fmt.Errorf("plot: no measurements")
	}
	rows := make([][]*plot.Plot, len(plots))
	for i, p := range plots {
		rows[i] = []*plot.Plot{p}
	}
	return figure.Grid{Plots: rows, Width: 10 * vg.Inch, Height: vg.Length(len(plots)) * 4 * vg.Inch}.Save(path)
}
