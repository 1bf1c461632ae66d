// Gap drawing off the guest's thread: an entry's sampling stream (sec. 3.1) -> blocks of gaps drawn by a short-lived goroutine -> the gaps native code samples with, in stream order.

package rpa

import (
	"math"

	"rvdyn/profhw"
)

// A gapStream draws an entry's sampling gaps a block ahead on another
// goroutine, so that the guest's thread, which refills the gaps native
// code uses (RefillGaps), copies them instead of drawing them: a gap
// costs a logarithm, once per sampled execution (an estimate, not
// measured apart: at some 20 ns each, matmul's 4 million samples at
// 1/256 would take 80 ms of its 1 s run). The stream is the entry's own random sequence in its own
// order, so the samples are the same as when the guest's thread draws
// (same seed, same records).
//
// Ownership, against the Go memory model: the entry's RNG moves into
// the stream when the stream starts and is used only by the drawing
// goroutine from then on. One block is in flight at a time: take starts
// the goroutine that draws block k+1 only after it received block k from
// next (the goroutine's start happens after the receive, and the send of
// block k+1 happens before its receive), so no two goroutines touch rnd
// or a block at once. The channel has room for the one block in flight,
// so a goroutine never blocks, and one left behind when the engine is
// dropped ends after its block: nothing leaks.
type gapStream struct {
	next chan *gapBlock // the block being drawn, buffered 1
	cur  *gapBlock      // the block gaps are taken from; nil before the first
	off  int            // gaps of cur taken
	draw drawState      // owned by the goroutine in flight
}

// A gapBlock is gapBlockLen consecutive gaps of a stream.
type gapBlock [gapBlockLen]uint64

// gapBlockLen is the gaps per block: as many as native code holds ahead,
// so one block refills them.
const gapBlockLen = NativeGaps

// drawState is what a drawing goroutine needs: the entry's RNG and its
// geometric distribution's parameter.
type drawState struct {
	rnd  profhw.RNG
	rate uint32
	lnq  float64
}

// newGapStream moves s's RNG into a stream and starts drawing its first
// block.
func newGapStream(s *entryState) *gapStream {
	st := &gapStream{next: make(chan *gapBlock, 1), draw: drawState{rnd: s.rnd, rate: s.rate, lnq: s.lnq}}
	s.rnd = profhw.RNG{} // the stream owns it now; a draw from s would be a bug
	st.start()
	return st
}

// start draws the next block on a new goroutine.
func (st *gapStream) start() {
	d := &st.draw
	go func() {
		b := new(gapBlock)
		for k := range b {
			b[k] = d.gap()
		}
		st.next <- b
	}()
}

// take returns the stream's next gap, waiting for its block if the
// drawing goroutine has not finished it (rare: a block lasts NativeGaps
// samples).
func (st *gapStream) take() uint64 {
	if st.cur == nil || st.off == len(st.cur) {
		st.cur, st.off = <-st.next, 0
		st.start()
	}
	n := st.cur[st.off]
	st.off++
	return n
}

func (d *drawState) gap() uint64 { return geometricGap(&d.rnd, d.rate, d.lnq) }

// geometricGap draws the number of selected instructions up to and
// including the next sample from rnd: 1 for N = rate <= 1, else 1 +
// floor(ln U / ln(1-1/N)) with U uniform in (0, 1] (lnq = ln(1-1/N)).
func geometricGap(rnd *profhw.RNG, rate uint32, lnq float64) uint64 {
	if rate <= 1 {
		return 1
	}
	u := float64(rnd.Uint64()>>11+1) / (1 << 53)
	g := math.Floor(math.Log(u) / lnq)
	if g >= 1<<62 {
		return 1 << 62
	}
	return 1 + uint64(g)
}

// drawGap returns entry ent's next gap: from its stream once native code
// samples it (fillAhead started one), else drawn here.
func (g *Engine) drawGap(ent int, s *entryState) uint64 {
	if st := g.streams[ent]; st != nil {
		return st.take()
	}
	return s.gap()
}
