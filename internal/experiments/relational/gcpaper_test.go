package relational

import (
	"strings"
	"testing"
	"time"

	"rvdyn/gcassist"
)

// TestGCPaperComparison checks the rpa configuration's whole cost and
// parts on a made-up report: the whole is rpa over nogc (not over
// nogc-rpa), the parts multiply to it, and a program missing one of the
// three configurations is left out.
func TestGCPaperComparison(t *testing.T) {
	m := func(prog, gc string, wall, thread float64, pause time.Duration) *GCMeasurement {
		g := &GCMeasurement{Program: prog, Exec: "dynamo", GC: gc, Wall: wall, ThreadCPU: thread}
		if pause > 0 {
			g.Stats = &gcassist.Stats{PauseTotal: pause}
		}
		return g
	}
	r := &GCReport{Measurements: []*GCMeasurement{
		m("a", GCNoGC, 1, 1, 0), m("a", GCNoGCRPA, 2, 1.5, 0), m("a", "rpa", 2.2, 1.5, 22*time.Millisecond),
		m("b", GCNoGC, 1, 1, 0), m("b", GCNoGCRPA, 2, 1.5, 0), m("b", "rpa", 2.2, 1.5, 22*time.Millisecond),
		m("c", GCNoGC, 1, 1, 0), m("c", "rpa", 9, 9, 0), // no nogc-rpa: left out
	}}
	rows := r.GCPaperComparison()
	if len(rows) != 1 {
		t.Fatalf("rows %+v", rows)
	}
	got := rows[0]
	near := func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
	if got.Programs != 2 || !near(got.WholeWall, 120) || !near(got.QueryWall, 100) || !near(got.CollectorWall, 10) ||
		!near(got.WholeThread, 50) || !near(got.CollectorThread, 0) || !near(got.Pauses, 1) {
		t.Errorf("got %+v; want 2 programs, whole +120%% wall (+50%% thread), query +100%%, collector +10%% (0%% thread), pauses 1%%", got)
	}
	if w, q, c := 1+got.WholeWall/100, 1+got.QueryWall/100, 1+got.CollectorWall/100; !near(w, q*c) {
		t.Errorf("whole %v is not query %v times collector %v", w, q, c)
	}
	var b strings.Builder
	WriteGCPaperComparison(&b, rows)
	for _, want := range []string{"0.6", "+120.0", "same quantity", "not the same quantity"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}
