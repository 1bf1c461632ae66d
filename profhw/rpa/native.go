// Native queries: a selected instruction and the engine's program in, the description the fragment compiler emits as x86-64 out (record, query and send, sec. 3.4.2).

package rpa

import "rvdyn/interp"

// NativeGaps is how many sampling gaps per PCT entry the engine draws
// ahead for native code (NativeState.Gaps): the sec. 3.1 sampling stream,
// consumed in order by whichever side samples. Native code that has used
// them all leaves to the engine (a sample exit) to have them refilled, so
// this sets how often a hot loop that never leaves otherwise is cut: at
// 1024, once per 1024 samples (every 262,144 selected executions at
// 1/256), against once per 32 with 32 gaps, which cost about a fifth of
// the edge query's overhead (rvdyn rpa overhead). The price is memory in
// fragment.State: 8 KiB per entry.
const NativeGaps = 1024

// NativeState is the memory the engine shares with code emitted into
// fragments for native queries (sec. 3.4.2 run in the fragment): sampling
// gaps drawn ahead, the counters native code keeps, and a record buffer.
// Its layout is part of the fragment code generator's ABI.
type NativeState struct {
	// Gaps holds, per PCT entry, sampling gaps drawn ahead from the
	// entry's stream; Gaps[e][Used[e]:] are not used yet, in stream
	// order. Native code that samples an execution takes the next one as
	// the entry's new countdown; when none is left it leaves to the
	// engine, which refills (RefillGaps).
	Gaps [NumEntries][NativeGaps]uint64
	Used [NumEntries]uint64
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

// UseNative shares ns with native code (sec. 3.4.2 run in fragments): the engine draws sampling gaps
// ahead into it for the entries Native describes, and adds its counters
// to Stats. ns must stay valid while the engine runs.
func (g *Engine) UseNative(ns *NativeState) {
	g.nat = ns
	for i := range ns.Used {
		ns.Used[i] = NativeGaps // nothing drawn ahead
	}
}

// nextGap returns the entry's next sampling gap: drawn ahead, or drawn now.
func (g *Engine) nextGap(ent Entry, s *entryState) uint64 {
	if ns := g.nat; ns != nil && ns.Used[ent] < NativeGaps {
		n := ns.Gaps[ent][ns.Used[ent]]
		ns.Used[ent]++
		return n
	}
	n := s.gap()
	s.drawn += n
	return n
}

// unusedGaps is the sum of the gaps drawn ahead and not used yet.
func (g *Engine) unusedGaps(ent int) uint64 {
	var sum uint64
	if ns := g.nat; ns != nil {
		for _, n := range ns.Gaps[ent][min(ns.Used[ent], NativeGaps):] {
			sum += n
		}
	}
	return sum
}

// RefillGaps tops up the gaps drawn ahead for native code, keeping their
// order (sec. 3.1's independent sampling stream per entry). The
// dispatcher calls it after native code ran; it draws one gap for each
// one used (geometricGap, about 5 ns each).
func (g *Engine) RefillGaps() {
	ns := g.nat
	if ns == nil {
		return
	}
	for _, ent := range g.ahead {
		g.refill(ent)
	}
}

// refill moves entry ent's unused gaps to the front and draws as many as
// were used behind them.
func (g *Engine) refill(ent int) {
	ns := g.nat
	u := ns.Used[ent]
	if u == 0 {
		return
	}
	s := &g.ents[ent]
	b := &ns.Gaps[ent]
	k := copy(b[:], b[u:])
	for ; k < NativeGaps; k++ {
		b[k] = s.gap()
		s.drawn += b[k]
	}
	ns.Used[ent] = 0
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
// branches (to aligned targets) and stores, records without timing
// fields, and queries that Native's doc allows. UseNative must have been
// called.
func (g *Engine) Native(pc uint64, in interp.Inst) (*Native, bool) {
	ent, period, ok := g.Selection(pc, in)
	if !ok || g.nat == nil || !NativeAvailable() {
		return nil, false
	}
	switch c := in.Op.Class(); {
	case c == interp.ClassStore:
	case in.IsBranch() && (pc+uint64(in.Imm))&3 == 0:
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
	if period > 1 && !g.isAhead[ent] {
		g.isAhead[ent] = true
		g.ahead = append(g.ahead, ent)
		g.refill(ent) // all NativeGaps of them: none is drawn ahead yet (UseNative)
	}
	return nv, true
}
