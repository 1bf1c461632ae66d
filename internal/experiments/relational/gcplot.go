// Plot: a collector GCReport -> GC overhead per program and collector mode, one panel per execution mode (SVG or PNG).

package relational

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

// PlotGC draws, for each execution mode of the report, a bar chart of
// run time (wall) against the no-GC run, in percent: one group of bars
// per program, one bar per collecting configuration against nogc (for
// rpa the whole cost, the quantity of the relational-profiling paper's
// 0.6%), and for rpa also its two parts: the barrier query alone
// (nogc-rpa against nogc) and the collector on top of it (rpa against
// nogc-rpa). The format follows the extension of path.
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
			if m.Program == p && m.Exec == e && m.GC == g && m.Error == "" && m.Wall > 0 {
				return m
			}
		}
		return nil
	}
	// A bar is the wall time of configuration of over that of base.
	type bar struct{ label, of, base string }
	var bars []bar
	for _, g := range gcs {
		gb, edge := splitEdge(g)
		if gb != "rpa" {
			bars = append(bars, bar{g + " vs nogc", g, GCNoGC})
			continue
		}
		q := GCNoGCRPA
		if edge > 0 {
			q += fmt.Sprintf("+edge%d", edge)
		}
		bars = append(bars, bar{g + " vs nogc (whole)", g, GCNoGC},
			bar{q + " vs nogc (query)", q, GCNoGC}, bar{g + " vs " + q + " (collector)", g, q})
	}
	var plots []*plot.Plot
	w := vg.Points(4)
	for _, e := range execs {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s mode: run time against no GC (%s size, %d KiB between collections)", e, r.Size, r.IntervalKB)
		p.Y.Label.Text = "wall time overhead (%)"
		p.X.Label.Text = "Scheme program"
		for i, b := range bars {
			var vals plotter.Values
			for _, prog := range programs {
				v := 0.0
				if m, base := find(prog, e, b.of), find(prog, e, b.base); m != nil && base != nil {
					v = 100 * (m.Wall/base.Wall - 1)
				}
				vals = append(vals, v)
			}
			bc, err := plotter.NewBarChart(vals, w)
			if err != nil {
				return err
			}
			bc.LineStyle.Width = 0
			bc.Color = plotutil.Color(i)
			bc.Offset = w * vg.Length(float64(i)-float64(len(bars)-1)/2)
			p.Add(bc)
			p.Legend.Add(b.label, bc)
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
