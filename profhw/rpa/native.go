// Native queries: a selected instruction and the engine's program in, the description the fragment compiler emits as x86-64 out (record, query and send, sec. 3.4.2).

package rpa

import (
	"sync/atomic"

	"rvdyn/interp"
)

// NativeGaps is how many sampling gaps per PCT entry NativeState.Gaps
// holds drawn ahead for native code: the sec. 3.1 sampling stream,
// consumed in order by whichever side samples. A ring: the service
// threads keep it topped up while the guest runs (serviceDraw), as the
// paper's hardware draws its own random intervals; native code that
// finds it empty leaves to the engine (a sample exit), which draws the
// gap itself. At 1024 a ring lasts some 250 µs of the busiest corpus
// guest at 1/256 (spectral, 4 million samples a second), while a service
// thread that receives its messages looks every drawEvery of them. The
// price is memory in fragment.State: 8 KiB per entry.
const NativeGaps = 1024

// NativeState is the memory the engine shares with code emitted into
// fragments for native queries (sec. 3.4.2 run in the fragment): sampling
// gaps drawn ahead, the counters native code keeps, and a record buffer.
// Its layout is part of the fragment code generator's ABI.
type NativeState struct {
	// Gaps is, per PCT entry, a ring of sampling gaps drawn ahead from
	// the entry's stream: the k-th gap drawn is Gaps[e][k%NativeGaps],
	// and those with Used[e] <= k < Drawn[e] are not used yet, in stream
	// order. Native code that samples an execution takes gap Used[e] as
	// the entry's new countdown and increments Used[e]; when Used[e] ==
	// Drawn[e] it leaves to the engine instead.
	Gaps [NumEntries][NativeGaps]uint64
	// Used counts the gaps taken from the ring, per entry. Only the
	// guest's thread writes it (native code's plain ADDQ, the engine's
	// atomic store); a service thread reads it atomically to find room.
	Used [NumEntries]uint64
	// Drawn counts the gaps put in the ring, per entry. Only a holder of
	// the engine's draw lock writes it, after the gaps themselves, by an
	// atomic store: a reader that sees Drawn sees the gaps below it
	// (native code's plain loads under x86-TSO: a load is not reordered
	// with an older load; the engine's atomic load under the Go memory
	// model).
	Drawn [NumEntries]uint64
	// Always counts, per entry of period 1, the executions native code
	// sampled: such an entry's countdown stays 1 and its gaps are not
	// drawn (every gap is 1 and draws nothing from the stream).
	Always [NumEntries]uint64
	// Records, Insts and Sent count what native code did, as the
	// engine's Stats fields of the same names.
	Records uint64
	Insts   uint64
	Sent    [MaxQueues]uint64
	// Rec is the record being built (the collected words, zero above).
	Rec [MaxRecordWords]uint64
}

// A NativeQueue is a queue a native query sends to (sec. 3.4.2's message
// queue): its memory (mq layout) and capacity.
type NativeQueue struct {
	Base  uintptr
	Slots int
}

// A Native describes the record and the query of one selected
// instruction so that the fragment compiler can emit them (sec. 3.4.2):
// the record's fields in order, the instruction's profile tag (for misc),
// the query instructions reachable from QPC (only forward branches, no
// FILTER, no count or interrupt actions), and per queue the number of
// reachable sends, which native code checks room for before it commits
// anything.
type Native struct {
	PC     uint64
	Inst   interp.Inst // the selected instruction
	Entry  int
	Period uint32 // the entry's sampling period, 1: always
	Fields []Field
	Tag    uint8
	QPC    int
	Code   []QueryInst
	Sends  [MaxQueues]int
	Queues [MaxQueues]NativeQueue
}

// UseNative shares ns with native code (sec. 3.4.2 run in fragments):
// the engine draws sampling gaps ahead into it for the entries Native
// describes, and adds its counters to Stats. ns must stay valid until
// StopNative returns. With thread, the service threads of a Session keep
// the rings full (serviceDraw); without, or where no query sends, the
// guest's thread draws the gaps, at the dispatcher (RefillGaps) and when
// native code finds a ring empty.
func (g *Engine) UseNative(ns *NativeState, thread bool) {
	g.nat = ns
	g.drawThread = thread
	for i := range ns.Used {
		ns.Used[i], ns.Drawn[i] = 0, 0 // nothing drawn ahead
	}
}

// nextGap returns the entry's next sampling gap: drawn ahead, or drawn
// now. It runs on the guest's thread.
func (g *Engine) nextGap(ent Entry, s *entryState) uint64 {
	ns := g.nat
	if ns == nil || !g.isAhead[ent] {
		n := s.gap()
		s.drawn += n
		return n
	}
	if n, ok := g.takeGap(int(ent)); ok {
		return n
	}
	// The ring is empty: the next gap of the stream is drawn now, under
	// the lock, unless a service thread put some in meanwhile.
	g.drawMu.Lock()
	defer g.drawMu.Unlock()
	if n, ok := g.takeGap(int(ent)); ok {
		return n
	}
	n := s.gap()
	s.drawn += n
	g.stats.GapsGuest++
	return n
}

// takeGap takes entry ent's next gap from the ring, if there is one.
func (g *Engine) takeGap(ent int) (uint64, bool) {
	ns := g.nat
	u := atomic.LoadUint64(&ns.Used[ent])
	if u >= atomic.LoadUint64(&ns.Drawn[ent]) {
		return 0, false
	}
	n := ns.Gaps[ent][u%NativeGaps]
	atomic.StoreUint64(&ns.Used[ent], u+1)
	return n, true
}

// unusedGaps is the sum of the gaps drawn ahead and not used yet. The
// caller holds drawMu.
func (g *Engine) unusedGaps(ent int) uint64 {
	var sum uint64
	if ns := g.nat; ns != nil {
		for k := atomic.LoadUint64(&ns.Used[ent]); k < ns.Drawn[ent]; k++ {
			sum += ns.Gaps[ent][k%NativeGaps]
		}
	}
	return sum
}

// RefillGaps tops up the rings of gaps drawn ahead for native code that
// the service threads have not kept at least half full (a machine without
// a core to spare for them, no messages, or no drawing there), keeping
// their order (sec. 3.1's
// independent sampling stream per entry). The dispatcher calls it after
// native code ran; it draws one gap for each one used (geometricGap,
// about 5 ns each).
func (g *Engine) RefillGaps() {
	ns := g.nat
	if ns == nil {
		return
	}
	for _, ent := range g.ahead {
		if atomic.LoadUint64(&ns.Drawn[ent])-atomic.LoadUint64(&ns.Used[ent]) < NativeGaps/2 {
			g.drawMu.Lock()
			g.refill(ent, &g.stats.GapsGuest)
			g.drawMu.Unlock()
		}
	}
}

// refill fills entry ent's ring, counting the gaps it draws in *count.
// The caller holds drawMu.
func (g *Engine) refill(ent int, count *uint64) {
	ns := g.nat
	s := &g.ents[ent]
	d := ns.Drawn[ent]
	end := atomic.LoadUint64(&ns.Used[ent]) + NativeGaps
	for k := d; k < end; k++ {
		n := s.gap()
		ns.Gaps[ent][k%NativeGaps] = n
		s.drawn += n
	}
	if end > d {
		*count += end - d
		atomic.StoreUint64(&ns.Drawn[ent], end) // after the gaps
	}
}

// NativeAvailable reports whether Native describes any query. It is
// false in race builds: the detector cannot see the stores emitted code
// makes to a queue (the ready word that orders a slot's hand-over, sec.
// 3.4.2), so the Go producer's later stores to the same slot would look
// like races with the consumer's reads.
func NativeAvailable() bool { return !raceEnabled }

// Native returns the description of the record and query of the
// instruction in at pc for the fragment compiler, or false if it is not
// selected or native code cannot run its query: only conditional
// branches and stores, records without timing fields, and queries that
// Native's doc allows. A branch's target may be any halfword: with the C
// extension a target that is not a multiple of 4 is no fault (and a
// branch's offset is always even). UseNative must have been called.
func (g *Engine) Native(pc uint64, in interp.Inst) (*Native, bool) {
	ent, period, ok := g.Selection(pc, in)
	if !ok || g.nat == nil || !NativeAvailable() {
		return nil, false
	}
	switch c := in.Op.Class(); {
	case c == interp.ClassStore:
	case in.IsBranch():
	default:
		return nil, false
	}
	s := &g.ents[ent]
	nv := &Native{PC: pc, Inst: in, Entry: ent, Period: period, QPC: int(s.qpc), Code: g.insts, Tag: g.tagAt(pc)}
	for f := Field(0); f < NumFields && len(nv.Fields) < MaxRecordWords; f++ {
		if s.mask.Has(f) {
			if f == FieldFTime || f == FieldRTime {
				return nil, false
			}
			nv.Fields = append(nv.Fields, f)
		}
	}
	// Walk the reachable query instructions: forward branches only.
	for qpc := nv.QPC; qpc < len(g.insts); qpc++ {
		q := &g.insts[qpc]
		if q.A.Op.FilterRate() != 0 || q.B.Op.FilterRate() != 0 || q.A.Op >= numCmpOps || q.B.Op >= numCmpOps {
			return nil, false
		}
		switch q.Action {
		case ActNone:
		case ActSend:
			nv.Sends[q.Arg]++
		default:
			return nil, false
		}
		if (q.Match == NextBranch || q.Miss == NextBranch) && int(q.Target) <= qpc {
			return nil, false
		}
	}
	if len(g.insts)-nv.QPC > MaxInsts {
		return nil, false
	}
	for n, k := range nv.Sends {
		if k == 0 {
			continue
		}
		q := g.opts.Queues[n]
		if k > q.Slots() {
			return nil, false
		}
		nv.Queues[n] = NativeQueue{Base: q.Base(), Slots: q.Slots()}
	}
	if period > 1 {
		g.goAhead(ent)
	}
	return nv, true
}

// goAhead makes entry ent's gaps drawn ahead into its ring, once.
func (g *Engine) goAhead(ent int) {
	if g.isAhead[ent] {
		return
	}
	g.isAhead[ent] = true
	g.drawMu.Lock()
	g.ahead = append(g.ahead, ent)
	g.refill(ent, &g.stats.GapsGuest) // all NativeGaps of them: none is drawn ahead yet (UseNative)
	g.drawOn.Store(g.drawThread)
	g.drawMu.Unlock()
}
