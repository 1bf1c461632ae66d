// Report rendering: a Report -> the comparison table, the delay-sweep table, JSON.

package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"rvdyn"
	"strings"
	"text/tabwriter"
)

// ratio returns a/b, or NaN when either is missing.
func ratio(a, b *Measurement) float64 {
	if a == nil || b == nil || b.Median <= 0 {
		return math.NaN()
	}
	return a.Median / b.Median
}

func fmtF(x float64, format string) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf(format, x)
}

func secs(m *Measurement) string {
	if m == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", m.Median)
}

// Speedups returns, per guest, interp time / dynamo time at delay.
func (r *Report) Speedups(delay int) []float64 {
	var xs []float64
	for _, g := range r.Guests() {
		xs = append(xs, ratio(r.Find(g, ModeInterp, 0), r.Find(g, ModeDynamo, delay)))
	}
	return xs
}

// WriteTable writes the side-by-side comparison at the first delay: median
// seconds per mode and the ratios, with geometric means. "dyn/qemu" and
// "dyn/native" are time ratios (below 1 means dynamo is faster).
func (r *Report) WriteTable(w io.Writer) error {
	delay := r.Delays[0]
	has := func(mode string) bool {
		for _, m := range r.Modes {
			if m == mode {
				return true
			}
		}
		return false
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.AlignRight)
	cols := []string{"guest", "instructions", "interp s", "dynamo s"}
	if has(ModeQEMU) {
		cols = append(cols, "qemu s")
	}
	if has(ModeNative) {
		cols = append(cols, "native s")
	}
	cols = append(cols, "speedup")
	if has(ModeQEMU) {
		cols = append(cols, "dyn/qemu")
	}
	if has(ModeNative) {
		cols = append(cols, "dyn/native")
	}
	cols = append(cols, "cache %", "fragments", "code KiB", "compile ms")
	fmt.Fprintln(tw, strings.Join(cols, "\t")+"\t")
	var sp, vq, vn []float64
	for _, g := range r.Guests() {
		in, dy := r.Find(g, ModeInterp, 0), r.Find(g, ModeDynamo, delay)
		q, n := r.Find(g, ModeQEMU, 0), r.Find(g, ModeNative, 0)
		row := []string{g, "-", secs(in), secs(dy)}
		if dy != nil {
			row[1] = fmt.Sprint(dy.Instructions)
		} else if in != nil {
			row[1] = fmt.Sprint(in.Instructions)
		}
		if has(ModeQEMU) {
			row = append(row, secs(q))
		}
		if has(ModeNative) {
			row = append(row, secs(n))
		}
		s := ratio(in, dy)
		sp = append(sp, s)
		row = append(row, fmtF(s, "%.2fx"))
		if has(ModeQEMU) {
			vq = append(vq, ratio(dy, q))
			row = append(row, fmtF(ratio(dy, q), "%.2f"))
		}
		if has(ModeNative) {
			vn = append(vn, ratio(dy, n))
			row = append(row, fmtF(ratio(dy, n), "%.2f"))
		}
		if dy != nil {
			row = append(row, fmt.Sprintf("%.2f", dy.CachePercent), fmt.Sprint(dy.Fragments),
				fmt.Sprintf("%.1f", float64(dy.CodeBytes)/1024), fmt.Sprintf("%.1f", 1000*dy.CompileSecs))
		} else {
			row = append(row, "-", "-", "-", "-")
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	geo := []string{"geomean", "", "", ""}
	if has(ModeQEMU) {
		geo = append(geo, "")
	}
	if has(ModeNative) {
		geo = append(geo, "")
	}
	geo = append(geo, fmtF(GeoMean(sp), "%.2fx"))
	if has(ModeQEMU) {
		geo = append(geo, fmtF(GeoMean(vq), "%.2f"))
	}
	if has(ModeNative) {
		geo = append(geo, fmtF(GeoMean(vn), "%.2f"))
	}
	geo = append(geo, "", "", "", "")
	fmt.Fprintln(tw, strings.Join(geo, "\t")+"\t")
	return tw.Flush()
}

// WriteSweep writes the prediction-delay sweep: per guest and delay, the
// speedup over the interpreter, the share of instructions run from the
// cache, fragments built and flushes (the experiment of Figure 5 of the
// NET paper).
func (r *Report) WriteSweep(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "guest\tdelay\tdynamo s\tspeedup\tcache %\tfragments\tflushes\t")
	for _, g := range r.Guests() {
		in := r.Find(g, ModeInterp, 0)
		for _, d := range r.Delays {
			dy := r.Find(g, ModeDynamo, d)
			if dy == nil {
				continue
			}
			fmt.Fprintf(tw, "%s\t%d\t%.3f\t%s\t%.2f\t%d\t%d\t\n", g, d, dy.Median,
				fmtF(ratio(in, dy), "%.2fx"), dy.CachePercent, dy.Fragments, dy.Flushes)
		}
	}
	fmt.Fprint(tw, "geomean\t\t\t\t\t\t\t\n")
	for _, d := range r.Delays {
		fmt.Fprintf(tw, "\t%d\t\t%s\t\t\t\t\n", d, fmtF(GeoMean(r.Speedups(d)), "%.2fx"))
	}
	return tw.Flush()
}

// ReadJSON reads a report written by WriteJSON.
func ReadJSON(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := new(Report)
	if err := json.Unmarshal(b, r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(r.Delays) == 0 || len(r.Measurements) == 0 {
		return nil, fmt.Errorf("%s: not a benchmark report", path)
	}
	return r, nil
}

// WriteJSON writes the report as indented JSON to path.
func (r *Report) WriteJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// WriteAblation writes the ablation: per guest, the dynamo time with
// everything on and, for each mechanism switched off alone, the time
// relative to everything on (2.00x = twice as slow without it), with
// geometric means: what each mechanism buys.
func (r *Report) WriteAblation(w io.Writer) error {
	mechs := rvdyn.Mechanisms()
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "guest\tall on s")
	for _, m := range mechs {
		fmt.Fprintf(tw, "\tno %s", m)
	}
	fmt.Fprintln(tw, "\t")
	cols := make([][]float64, len(mechs))
	for _, g := range r.Guests() {
		on := r.Find(g, ModeDynamo, r.Delays[0])
		fmt.Fprintf(tw, "%s\t%s", g, secs(on))
		for i, m := range mechs {
			x := ratio(r.FindDisabled(g, m), on)
			cols[i] = append(cols[i], x)
			fmt.Fprintf(tw, "\t%s", fmtF(x, "%.2fx"))
		}
		fmt.Fprintln(tw, "\t")
	}
	fmt.Fprint(tw, "geomean\t")
	for i := range mechs {
		fmt.Fprintf(tw, "\t%s", fmtF(GeoMean(cols[i]), "%.2fx"))
	}
	fmt.Fprintln(tw, "\t")
	return tw.Flush()
}

// WriteSpecialize writes the value specialization comparison: per guest,
// dynamo's median time without and with specialization at the first
// delay, their ratio (below 1: specialization is faster), the loads
// specialized and the failed guards the dispatcher saw, with the
// geometric mean of the ratio. It needs a report run with Specialize.
func (r *Report) WriteSpecialize(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "guest\tdynamo s\t+spec s\tspec/dynamo\tloads specialized\tguard exits\t")
	var xs []float64
	for _, g := range r.Guests() {
		on, sp := r.Find(g, ModeDynamo, r.Delays[0]), r.FindSpecialized(g)
		if on == nil || sp == nil {
			continue
		}
		x := ratio(sp, on)
		xs = append(xs, x)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t\n", g, secs(on), secs(sp), fmtF(x, "%.3f"), sp.Specialized, sp.GuardExits)
	}
	fmt.Fprintf(tw, "geomean\t\t\t%s\t\t\t\n", fmtF(GeoMean(xs), "%.3f"))
	return tw.Flush()
}

// WritePrediction writes the NET paper's Figure 5 comparison (section 6):
// per guest and delay, the speedup of NET and of path profile based
// prediction over the interpreter and over native code (native time /
// dynamo time: above 1 means faster than the native build), with
// geometric means per delay, and with Config.Metrics the online hit rate
// and noise of the traces each compiled. It needs a report run with
// PathPrediction.
func (r *Report) WritePrediction(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "guest\tdelay\tNET s\tpath s\tNET/interp\tpath/interp\tNET/native\tpath/native\tpath counters/NET heads\tNET hit/noise %\tpath hit/noise %\t")
	type col struct{ ni, pi, nn, pn []float64 }
	geo := map[int]*col{}
	for _, d := range r.Delays {
		geo[d] = &col{}
	}
	for _, g := range r.Guests() {
		in, nat := r.Find(g, ModeInterp, 0), r.Find(g, ModeNative, 0)
		for _, d := range r.Delays {
			ne, pa := r.Find(g, ModeDynamo, d), r.FindPath(g, d)
			if ne == nil || pa == nil {
				continue
			}
			c := geo[d]
			vals := []float64{ratio(in, ne), ratio(in, pa), ratio(nat, ne), ratio(nat, pa)}
			c.ni, c.pi, c.nn, c.pn = append(c.ni, vals[0]), append(c.pi, vals[1]), append(c.nn, vals[2]), append(c.pn, vals[3])
			counters := "-"
			if ne.Counters > 0 {
				counters = fmt.Sprintf("%.2f", float64(pa.Counters)/float64(ne.Counters))
			}
			fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", g, d, ne.Median, pa.Median,
				fmtF(vals[0], "%.2fx"), fmtF(vals[1], "%.2fx"), fmtF(vals[2], "%.2fx"), fmtF(vals[3], "%.2fx"), counters,
				hitNoise(ne), hitNoise(pa))
		}
	}
	for _, d := range r.Delays {
		c := geo[d]
		fmt.Fprintf(tw, "geomean\t%d\t\t\t%s\t%s\t%s\t%s\t\t\t\t\n", d, fmtF(GeoMean(c.ni), "%.2fx"), fmtF(GeoMean(c.pi), "%.2fx"),
			fmtF(GeoMean(c.nn), "%.2fx"), fmtF(GeoMean(c.pn), "%.2fx"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	r.WriteFigure5(w)
	return nil
}

// hitNoise formats the online hit rate and noise of m's compiled traces
// (Config.Metrics), "-" without a metrics run.
func hitNoise(m *Measurement) string {
	if m.Metrics == nil || m.Metrics.Error != "" {
		return "-"
	}
	return fmt.Sprintf("%.1f/%.1f", m.Metrics.HitRate, m.Metrics.NoiseRate)
}
