package rpa

import (
	"slices"
	"testing"

	"rvdyn/interp"
	"rvdyn/profhw/mq"
)

// nativeEngine makes an engine for src with one queue per send target,
// and optionally native state.
func nativeEngine(t *testing.T, src string, ns *NativeState) (*Engine, []*mq.Queue) {
	t.Helper()
	p, err := Assemble(src)
	if err != nil {
		t.Fatal(err)
	}
	qs := make([]*mq.Queue, MaxQueues)
	for _, n := range p.Queues() {
		if qs[n], err = mq.NewQueue(0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { qs[n].Close() })
	}
	g, err := NewEngine(p, Options{Seed: 5, Queues: qs})
	if err != nil {
		t.Fatal(err)
	}
	if ns != nil {
		g.UseNative(ns)
	}
	return g, qs
}

// TestGapsAheadKeepTheStream: drawing sampling gaps ahead for native code
// (UseNative, Native, RefillGaps) leaves the samples, messages and Stats
// of the engine exactly as without, whether the engine or the native
// side (simulated here: a countdown of 1 takes the next gap ahead) uses
// the gaps.
func TestGapsAheadKeepTheStream(t *testing.T) {
	if !NativeAvailable() {
		t.Skip("no native queries in race builds")
	}
	const src = "for opBRANCH * every 7 collect pc res1; send 1 stop;"
	br := interp.Inst{Op: interp.OpBNE, Rs1: 5, Imm: -8}
	ev := func(i int) *interp.Event {
		return &interp.Event{Class: interp.ClassBranch, PC: 0x1000, Inst: br, Seq: uint64(i), Taken: i%3 != 0, Next: 0x1000 - 8}
	}
	plain, pq := nativeEngine(t, src, nil)
	var ns NativeState
	nat, nq := nativeEngine(t, src, &ns)
	var left [NumEntries]uint64
	nat.UseCountdowns(&left)
	nv, ok := nat.Native(0x1000, br)
	if !ok {
		t.Fatal("the edge query is not native")
	}
	var want, got []mq.Message
	drain := func(q *mq.Queue, into *[]mq.Message) {
		var m mq.Message
		for q.Receive(&m) {
			*into = append(*into, m)
		}
	}
	nativeRecords := uint64(0)
	for i := range 20000 {
		plain.Event(ev(i))
		drain(pq[1], &want)
		// Every other stretch of 500 events plays native code: it
		// decrements the countdown and, at 1, takes the next gap ahead
		// (the record itself is not built here).
		if i/500%2 == 1 && left[nv.Entry] > 1 {
			left[nv.Entry]--
		} else if i/500%2 == 1 && ns.Used[nv.Entry] < NativeGaps {
			left[nv.Entry] = ns.Gaps[nv.Entry][ns.Used[nv.Entry]]
			ns.Used[nv.Entry]++
			nativeRecords++
			// What native code would have sent.
			var m mq.Message
			m[0], m[1] = 0x1000, uint64(boolU(ev(i).Taken))
			got = append(got, m)
		} else {
			nat.Event(ev(i))
			drain(nq[1], &got)
		}
		if i%97 == 0 {
			nat.RefillGaps()
		}
	}
	if nativeRecords == 0 {
		t.Fatal("the simulated native code sampled nothing")
	}
	if !slices.Equal(want, got) {
		t.Errorf("messages differ: %d vs %d", len(want), len(got))
	}
	a, b := plain.Stats(), nat.Stats()
	if a.Events != b.Events || a.Records != b.Records+nativeRecords {
		t.Errorf("stats: plain %+v, with gaps ahead %+v (+%d records natively)", a, b, nativeRecords)
	}
}

// TestNativeDeclines: queries native code cannot run exactly are left to
// the engine.
func TestNativeDeclines(t *testing.T) {
	br := interp.Inst{Op: interp.OpBEQ, Rs1: 5, Imm: 8}
	for _, src := range []string{
		"for opBRANCH * every 4 collect pc ftime; send 1 stop;",
		"for opBRANCH * every 4 collect pc res1; if res1 = 1 and filter 16 then send 1 stop;",
		"for opBRANCH * every 4 collect pc res1; count stop;",
		"for opBRANCH * every 4 collect pc res1; interrupt 3 stop;",
		"for opLOAD * every 4 collect pc res1; send 1 stop;",
	} {
		var ns NativeState
		g, _ := nativeEngine(t, src, &ns)
		if _, ok := g.Native(0x1000, br); ok {
			t.Errorf("%q: native", src)
		}
	}
	if !NativeAvailable() {
		return
	}
	var ns NativeState
	g, _ := nativeEngine(t, "for opBRANCH * every 4 collect pc res1; send 1 stop;", &ns)
	if _, ok := g.Native(0x1000, interp.Inst{Op: interp.OpBEQ, Rs1: 5, Imm: 6}); ok {
		t.Error("a branch to a misaligned target is native")
	}
	if _, ok := g.Native(0x1000, br); !ok {
		t.Error("the edge query is not native")
	}
}
