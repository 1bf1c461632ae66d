// The collector experiment beside the relational-profiling paper's 0.6%: a GCReport in, the whole cost of --gc=rpa against no GC and its parts (query, collector, pauses) out.

package relational

import (
	"fmt"
	"io"
	"slices"

	"rvdyn/bench"
)

// GCPaperOverhead is the relational-profiling paper's GC figure (Heil and
// Smith, sec. 3 Example c and sec. 5, from their reference [13]): "GC
// overhead is reduced to 0.6% of the total runtime", the time of a run
// with the RPA-assisted concurrent collector over the time of the same
// program without collection, averaged over their Java benchmarks, on a
// simulated chip with the RPA hardware and three service processors
// beside the application's core.
const GCPaperOverhead = 0.6

// A GCPaperRow sets one execution mode's cost of the rpa configuration
// beside the paper's figure: the whole against no GC (the paper's
// quantity) and the parts it is made of. Overheads are percent, geometric
// means over the programs of ratios of median times.
type GCPaperRow struct {
	Exec     string
	Programs int // programs with all three of nogc, nogc-rpa and rpa measured
	// Whole is rpa against nogc: what --gc=rpa costs over a run that
	// never collects, the paper's quantity. Wall is run time (the
	// paper's "total runtime"), Thread the guest thread's CPU time.
	WholeWall, WholeThread float64
	// Query is nogc-rpa against nogc: the store-barrier query running
	// on the guest's thread, which the paper's hardware does for free.
	QueryWall, QueryThread float64
	// Collector is rpa against nogc-rpa: marking, the barrier service
	// thread and the pauses, with the query paid on both sides.
	CollectorWall, CollectorThread float64
	// Pauses is the median over the programs of the rpa run's total
	// pause time over its median wall time, percent: one component of
	// Collector (the root snapshot, the final mark and the sweep).
	Pauses float64
}

// GCPaperComparison returns a row per execution mode that has the rpa,
// nogc-rpa and nogc configurations measured for at least one program
// (in the report's order). Programs missing one of the three, or with an
// error, are left out of that mode's means.
func (r *GCReport) GCPaperComparison() []GCPaperRow {
	cell := map[[3]string]*GCMeasurement{}
	var execs []string
	for _, m := range r.Measurements {
		if m.Error != "" || m.Wall <= 0 || m.ThreadCPU <= 0 {
			continue
		}
		cell[[3]string{m.Program, m.Exec, m.GC}] = m
		if !slices.Contains(execs, m.Exec) {
			execs = append(execs, m.Exec)
		}
	}
	var rows []GCPaperRow
	for _, e := range execs {
		var ww, wt, qw, qt, cw, ct, pauses []float64
		seen := map[string]bool{}
		for _, m := range r.Measurements {
			if m.Exec != e || seen[m.Program] {
				continue
			}
			seen[m.Program] = true
			n, q, g := cell[[3]string{m.Program, e, GCNoGC}], cell[[3]string{m.Program, e, GCNoGCRPA}], cell[[3]string{m.Program, e, "rpa"}]
			if n == nil || q == nil || g == nil {
				continue
			}
			ww, wt = append(ww, g.Wall/n.Wall), append(wt, g.ThreadCPU/n.ThreadCPU)
			qw, qt = append(qw, q.Wall/n.Wall), append(qt, q.ThreadCPU/n.ThreadCPU)
			cw, ct = append(cw, g.Wall/q.Wall), append(ct, g.ThreadCPU/q.ThreadCPU)
			if g.Stats != nil {
				pauses = append(pauses, 100*g.Stats.PauseTotal.Seconds()/g.Wall)
			}
		}
		if len(ww) == 0 {
			continue
		}
		pct := func(xs []float64) float64 { return 100 * (bench.GeoMean(xs) - 1) }
		row := GCPaperRow{Exec: e, Programs: len(ww),
			WholeWall: pct(ww), WholeThread: pct(wt), QueryWall: pct(qw), QueryThread: pct(qt),
			CollectorWall: pct(cw), CollectorThread: pct(ct)}
		if len(pauses) > 0 {
			row.Pauses = bench.Median(pauses)
		}
		rows = append(rows, row)
	}
	return rows
}

// WriteGCPaperComparison writes the rows as a table headed by the paper's
// figure and what each column measures. It writes nothing if rows is
// empty.
func WriteGCPaperComparison(w io.Writer, rows []GCPaperRow) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "\nAgainst the relational-profiling paper (Heil and Smith, sec. 5): GC overhead %.1f%% of the total runtime,\n", GCPaperOverhead)
	fmt.Fprintln(w, "the RPA-assisted collector's run time over a run without GC (Java programs on a simulated chip: RPA hardware, three service processors).")
	fmt.Fprintln(w, "Ours, the same quantity: --gc=rpa's run time (wall) over the nogc run's, geometric mean over the programs;")
	fmt.Fprintln(w, "then its parts: the barrier query alone (nogc-rpa vs nogc) and the collector on top of it (rpa vs nogc-rpa);")
	fmt.Fprintln(w, "pauses: median over programs of total pause time / wall time, one component of the collector's part. In %:")
	fmt.Fprintf(w, "  %-7s %8s %14s %14s %14s %14s %14s %14s %7s\n", "exec", "programs", "whole wall", "whole thread", "query wall", "query thread", "collector wall", "coll. thread", "pauses")
	fmt.Fprintf(w, "  %-7s %8s %14.1f %14s %14s %14s %14s %14s %7s\n", "paper", "", GCPaperOverhead, "", "< 0.5 (*)", "", "", "", "")
	for _, r := range rows {
		fmt.Fprintf(w, "  %-7s %8d %+14.1f %+14.1f %+14.1f %+14.1f %+14.1f %+14.1f %7.2f\n", r.Exec, r.Programs,
			r.WholeWall, r.WholeThread, r.QueryWall, r.QueryThread, r.CollectorWall, r.CollectorThread, r.Pauses)
	}
	fmt.Fprintln(w, "  (*) not the same quantity: the paper's Figure 8b, the slow-down from the profiling hardware's stalls")
	fmt.Fprintln(w, "      (GC and edge queries together, three profile networks) against unlimited profiling hardware, sec. 6.2.")
	fmt.Fprintln(w, "      The paper gives no split of its 0.6% into parts.")
}
