// Compile-mode comparison: a Report with synchronous and service-thread dynamo runs -> a table of total time, time to steady state and main-thread compile time.

package bench

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"
)

// WriteCompile writes, per guest at the first delay, the synchronous and
// the service-thread (async) dynamo runs side by side: median seconds and
// their ratio (below 1: async is faster), the median of the ratios of
// the paired runs (run k async / run k sync, which ran one after the
// other: less sensitive to drift in a shared machine's speed), the time of the last fragment
// insertion (time to steady state) in each, the main thread's recording
// and compiling time in each, and the async run's queued traces,
// queue-full compiles (done on the main thread) and stale results
// (discarded after a flush), with the geometric mean of the ratio.
func (r *Report) WriteCompile(w io.Writer) error {
	delay := r.Delays[0]
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "guest\tsync s\tasync s\tasync/sync\tpaired\tsteady sync s\tsteady async s\tmain compile ms sync\tasync\tservice ms\tqueued\tqueue full\tstale\t")
	var rs, ps []float64
	for _, g := range r.Guests() {
		sy, as := r.Find(g, ModeDynamo, delay), r.FindAsync(g, delay)
		if sy == nil || as == nil {
			continue
		}
		x := ratio(as, sy)
		if !math.IsNaN(x) {
			rs = append(rs, x)
		}
		p := PairedRatio(as.Seconds, sy.Seconds)
		if !math.IsNaN(p) {
			ps = append(ps, p)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.3f\t%.3f\t%.1f\t%.1f\t%.1f\t%d\t%d\t%d\t\n", g, secs(sy), secs(as), fmtF(x, "%.3f"), fmtF(p, "%.3f"),
			sy.LastInsertSecs, as.LastInsertSecs, 1e3*sy.CompileSecs, 1e3*as.CompileSecs, 1e3*as.ServiceSecs, as.Queued, as.QueueFull, as.Stale)
	}
	fmt.Fprintf(tw, "geomean\t\t\t%s\t%s\t\t\t\t\t\t\t\t\t\n", fmtF(GeoMean(rs), "%.3f"), fmtF(GeoMean(ps), "%.3f"))
	return tw.Flush()
}

// PairedRatio returns the median of a[k]/b[k] over the runs both have
// (NaN if none).
func PairedRatio(a, b []float64) float64 {
	var r []float64
	for k := range min(len(a), len(b)) {
		if b[k] > 0 {
			r = append(r, a[k]/b[k])
		}
	}
	return Median(r)
}
