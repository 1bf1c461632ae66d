// Sampling gaps drawn on the service threads: native code's rings of gaps kept full beside the guest (sec. 3.1's random sampling, drawn off the guest's thread).

package rpa

import (
	"sync/atomic"

	"rvdyn/profhw/mq"
)

// drawEvery is how many messages a service thread handles between looks
// at the rings of gaps (serviceDraw): each sampled execution of a query
// that sends takes one gap and sends at least one message, so a ring
// that was full has lost at most drawEvery gaps since the last look.
const drawEvery = 64

// serviceDraw tops up, on a service thread, every ring of gaps that has
// room for a quarter of NativeGaps (NativeState). The service threads
// call it every drawEvery messages they handle.
//
// The paper's hardware draws its random sampling intervals itself (sec.
// 3.1). Here native code takes each sample's next gap from a ring in
// NativeState, and drawing them (geometricGap, 5 to 11 ns each) is a
// service thread's work, done while it waits for messages anyway,
// instead of the guest's. Drawn by the guest's thread, at the dispatcher
// and at a sample exit once every NativeGaps samples (native code
// leaves when its ring is empty), they cost bintree's edge query at
// 1/256 1.2 million draws and some 1,150 exits.
//
// Not a timer-driven thread of its own: a Go timer here wakes a goroutine
// a millisecond late or more (the netpoller's resolution), and a ring
// lasts a quarter of that at the busiest guests' sampling rates; a
// service thread that is receiving messages is awake anyway.
//
// The rings keep the stream's order: every gap of an entry is drawn under
// drawMu, in order, into the ring's next slot (or, by the guest when the
// ring is empty, straight into the countdown), so the samples taken do
// not depend on which thread drew them or when. A service thread does not
// wait for drawMu: if the guest's thread holds it, it looks again later.
func (g *Engine) serviceDraw() {
	if !g.drawOn.Load() || !g.drawMu.TryLock() {
		return
	}
	defer g.drawMu.Unlock()
	ns := g.nat
	if ns == nil || !g.drawThread {
		return
	}
	for _, ent := range g.ahead {
		if ns.Drawn[ent]-atomic.LoadUint64(&ns.Used[ent]) <= NativeGaps-NativeGaps/4 {
			g.refill(ent, &g.stats.GapsThread)
		}
	}
}

// drawHandler wraps a queue's message handler h with the service
// thread's share of drawing gaps (serviceDraw).
func (g *Engine) drawHandler(h func(*mq.Message)) func(*mq.Message) {
	n := 0
	return func(m *mq.Message) {
		h(m)
		if n++; n == drawEvery {
			n = 0
			g.serviceDraw()
		}
	}
}

// StopNative stops the service threads from drawing gaps into the
// NativeState UseNative shared: after it returns nothing but the guest's
// thread writes it. The engine may go on running queries in Go (Event);
// the guest's thread then draws every gap. Call it before the
// NativeState's memory is reused; calling it again does nothing.
func (g *Engine) StopNative() {
	g.drawOn.Store(false)
	g.drawMu.Lock()
	g.drawThread = false
	g.drawMu.Unlock()
}
