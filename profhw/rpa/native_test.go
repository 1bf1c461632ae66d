package rpa

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
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
		g.UseNative(ns, false)
	}
	return g, qs
}

// gapBranch at 0x1000 is the selected instruction of the gap tests, and
// gapEvent its i-th retired execution (taken two times in three).
var gapBranch = interp.Inst{Op: interp.OpBNE, Rs1: 5, Imm: -8}

func gapEvent(i int) *interp.Event {
	return &interp.Event{Class: interp.ClassBranch, PC: 0x1000, Inst: gapBranch, Seq: uint64(i), Taken: i%3 != 0, Next: 0x1000 - 8}
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
	br, ev := gapBranch, gapEvent
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
		} else if e := nv.Entry; i/500%2 == 1 && ns.Used[e] < ns.Drawn[e] {
			left[e] = ns.Gaps[e][ns.Used[e]%NativeGaps]
			ns.Used[e]++
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

// TestGapsDrawnBesideKeepTheStream: with the service threads drawing
// gaps into the rings beside the guest (serviceDraw), the executions
// sampled and the Stats are exactly those of the engine alone, and the
// gaps are counted once, whoever drew them. A goroutine plays the
// service thread (in race builds too, where the test checks the
// locking; native code itself is not run there), and the test's own
// loop looks at the rings at fixed points as well, so that some are
// drawn there on any schedule. Simulated native code takes gaps as
// fragments do, Used < Drawn, here with atomic accesses.
func TestGapsDrawnBesideKeepTheStream(t *testing.T) {
	const src = "for opBRANCH * every 5 collect pc res1; send 1 stop;"
	br, ev := gapBranch, gapEvent
	plain, pq := nativeEngine(t, src, nil)
	var ns NativeState
	nat, nq := nativeEngine(t, src, nil)
	nat.UseNative(&ns, true)
	var left [NumEntries]uint64
	nat.UseCountdowns(&left)
	e, _, ok := nat.Selection(0x1000, br)
	if !ok {
		t.Fatal("the branch is not selected")
	}
	nat.goAhead(e)
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			nat.serviceDraw()
			runtime.Gosched()
		}
	}()
	// sampled drains q and reports whether the event sent a message.
	sampled := func(q *mq.Queue) bool {
		var m mq.Message
		n := 0
		for q.Receive(&m) {
			n++
		}
		return n > 0
	}
	var want, got []int
	native := 0
	for i := range 200000 {
		plain.Event(ev(i))
		if sampled(pq[1]) {
			want = append(want, i)
		}
		u := atomic.LoadUint64(&ns.Used[e])
		switch {
		case i/5000%2 == 0 || left[e] == 1 && u >= atomic.LoadUint64(&ns.Drawn[e]):
			nat.Event(ev(i)) // the engine's turn, or an empty ring: a sample exit
			if sampled(nq[1]) {
				got = append(got, i)
			}
		case left[e] > 1:
			left[e]--
		default: // native code samples this one and takes the next gap
			left[e] = ns.Gaps[e][u%NativeGaps]
			atomic.StoreUint64(&ns.Used[e], u+1)
			got = append(got, i)
			native++
		}
		if i%1000 == 0 {
			nat.serviceDraw()
		}
		if i%7919 == 0 {
			nat.RefillGaps()
		}
	}
	stop.Store(true)
	wg.Wait()
	if native == 0 || !slices.Equal(want, got) {
		t.Errorf("sampled executions differ: %d vs %d (%d natively)", len(want), len(got), native)
	}
	a, b := plain.Stats(), nat.Stats()
	if a.Events != b.Events {
		t.Errorf("events: plain %d, with gaps drawn beside %d", a.Events, b.Events)
	}
	if b.GapsThread == 0 || b.GapsGuest == 0 {
		t.Errorf("gaps drawn by a service thread %d, by the guest %d: want both", b.GapsThread, b.GapsGuest)
	}
	nat.StopNative()
	before := nat.Stats().GapsThread
	atomic.StoreUint64(&ns.Used[e], atomic.LoadUint64(&ns.Drawn[e]))
	nat.serviceDraw()
	if after := nat.Stats().GapsThread; after != before {
		t.Errorf("after StopNative a service thread drew %d gaps", after-before)
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
	// RV64C: a target that is a multiple of 2 but not of 4 (c.bnez's
	// fall-through, glibc's code) is no fault, and its query is native.
	if _, ok := g.Native(0x1000, interp.Inst{Op: interp.OpBEQ, Rs1: 5, Imm: 6}); !ok {
		t.Error("a branch to a halfword target is not native")
	}
	if _, ok := g.Native(0x1000, br); !ok {
		t.Error("the edge query is not native")
	}
}
