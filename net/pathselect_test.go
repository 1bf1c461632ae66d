package net

import (
	"testing"

	"rvdyn/interp"
)

func trace(head uint64, pcs ...uint64) *interp.Trace {
	t := &interp.Trace{Head: head, End: head}
	for _, pc := range pcs {
		t.Steps = append(t.Steps, interp.TraceStep{PC: pc})
	}
	return t
}

// TestCountPath checks path profile prediction's counters: each distinct
// path (head and executed pcs) has its own, a path is predicted when its
// count exceeds tau, the counter restarts, and Reset zeroes them all.
func TestCountPath(t *testing.T) {
	s := NewSelector(Options{Delay: 2, Predict: PredictPath})
	a, b := trace(0x100, 0x100, 0x104, 0x108), trace(0x100, 0x100, 0x10c)
	got := []bool{s.countPath(a), s.countPath(b), s.countPath(a), s.countPath(a), s.countPath(b), s.countPath(b), s.countPath(a)}
	want := []bool{false, false, false, true, false, true, false}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("count %d: %v, want %v (all: %v)", i, got[i], want[i], got)
		}
	}
	st := s.Stats()
	if st.Paths != 2 || st.Profiled != 7 || st.Predictions != 2 {
		t.Errorf("stats %+v: want 2 paths, 7 profiled, 2 predictions", st)
	}
	s.countPath(a)
	s.Reset()
	if s.countPath(a) || s.countPath(a) || !s.countPath(a) {
		t.Error("after Reset a path must execute tau+1 times again")
	}
	if !s.Bump(0x100) || !s.Bump(0x100) {
		t.Error("under PredictPath every head execution is profiled")
	}
	s.Abandon(0x100)
	if s.Bump(0x100) {
		t.Error("an abandoned head is not profiled")
	}
}

func TestParsePredict(t *testing.T) {
	for in, want := range map[string]Predict{"net": PredictNET, "NET": PredictNET, "path": PredictPath, " Path ": PredictPath} {
		if got, err := ParsePredict(in); err != nil || got != want {
			t.Errorf("%q: %v, %v", in, got, err)
		}
	}
	if _, err := ParsePredict("paths"); err == nil {
		t.Error("paths: no error")
	}
	if PredictPath.String() != "path" || (Options{}).Predict != PredictNET {
		t.Error("names or zero value wrong")
	}
}
