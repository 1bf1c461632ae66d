package net

import (
	"slices"
	"testing"
)

// TestOnlineScorer replays a selection log against a hand-made run: paths
// A, B, A, A, B of 10 instructions each; a trace at B's head at 10, a
// flush at 25, a trace from inside A's execution at 33 (an exit target),
// and a trace at A's head at 40 whose path is already predicted.
func TestOnlineScorer(t *testing.T) {
	var clock uint64
	o := &onlineScorer{retired: func() uint64 { return clock }, log: []SelectionEvent{
		{At: 10, Head: 0xb}, {At: 25, Flush: true}, {At: 33, Head: 0xa4}, {At: 40, Head: 0xb},
	}}
	const a, b = 0, 1
	for _, p := range []PathID{a, b, a, a, b} {
		clock += 10
		o.PathExecuted(p, HeadID(p))
	}
	// B: captured at 10 (the predicting execution), flushed at 25,
	// predicted again at 40. A: predicted at 33, inside its execution
	// from 30.
	if want := []uint64{1, 2}; !slices.Equal(o.captured, want) {
		t.Errorf("captured %v, want %v", o.captured, want)
	}
	if o.exact != 2 {
		t.Errorf("%d traces at path heads, want 2 (at 10 and 40)", o.exact)
	}
}

// TestOnlineScorerRemove: paths A, B, A, B, A, B; traces at A's head
// (at 0) and B's (at 10); B's trace alone is removed at 25 (a phase flush
// that kept A's, or a failed specialization) and compiled again at 50.
func TestOnlineScorerRemove(t *testing.T) {
	var clock uint64
	o := &onlineScorer{retired: func() uint64 { return clock }, log: []SelectionEvent{
		{At: 0, Head: 0xa}, {At: 10, Head: 0xb}, {At: 25, Head: 0xb, Remove: true}, {At: 50, Head: 0xb},
	}}
	const a, b = 0, 1
	for _, p := range []PathID{a, b, a, b, a, b} {
		clock += 10
		o.PathExecuted(p, HeadID(p))
	}
	// A: all three executions. B: at 10, not at 30, again at 50.
	if want := []uint64{3, 2}; !slices.Equal(o.captured, want) {
		t.Errorf("captured %v, want %v", o.captured, want)
	}
}

// TestNETOnce: a head that predicted a path predicts no other until the
// run ends, unlike NET offline, which re-predicts from the same head.
func TestNETOnce(t *testing.T) {
	n, once := NewNETPredictor(1), NewNETPredictorOnce(1)
	for _, p := range []PathID{0, 0, 1, 1, 1} { // two paths from head 0
		n.PathExecuted(p, 0)
		once.PathExecuted(p, 0)
	}
	if got := n.Captured(); !slices.Equal(got, []uint64{1, 2}) {
		t.Errorf("NET captured %v, want [1 2]", got)
	}
	if got := once.Captured(); !slices.Equal(got, []uint64{1}) && !slices.Equal(got, []uint64{1, 0}) {
		t.Errorf("NET once captured %v, want [1 0]", got)
	}
}
