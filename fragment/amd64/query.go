// Native queries: an OpSample with an rpa.Native -> x86-64 that samples, builds the record, runs the query's compares and branches and sends into the queues (RPA sec. 3.4.2).

package amd64

import (
	"rvdyn/fragment/ir"
	"rvdyn/interp"
	"rvdyn/profhw/mq"
	"rvdyn/profhw/rpa"
)

// lowerNativeSample lowers the sampling decision of an instruction whose
// query runs natively. The hot path is the decision, "SUBQ $1,
// countdown; JEQ sampled", then back:, and the sampled execution runs
// out of line, before the instruction (whose record needs only values
// it reads): first every check that
// could fail, with nothing changed yet, so that a failure leaves through
// the ExitSample exit and the engine runs the execution as before (no
// gap drawn ahead, a store address out of bounds, a queue without room
// for the query's sends); then the commit: the next gap becomes the
// countdown, the record goes into NativeState.Rec, the query's
// instructions run as compares and branches, and each send writes the
// record into its queue by the mq protocol.
func (c *compiler) lowerNativeSample(i int, in ir.Inst) {
	a := c.a
	nv := in.Native
	sampled, back := &label{}, &label{}
	cd := c.countdown(in.Off)
	c.cdDec(cd)
	a.jcc(condEQ, sampled)
	a.bind(back)
	exit := c.stubFor(in.Exit, i).stub
	c.cold = append(c.cold, func() {
		c.mark(in.PC)
		// A check that fails leaves with the countdown at 1, as the
		// engine expects of a sample exit (it decrements it to 0 and
		// samples); the commit overwrites it instead.
		fail := &label{}
		a.bind(sampled)
		c.cdZeroed(cd, back)
		used := mem(rSt, stateUsed+8*int64(nv.Entry))
		if nv.Period > 1 { // a gap drawn ahead: Used < Drawn (rpa.NativeState)
			a.op(xMOVQ, used, reg(rCX))
			a.op(xCMPQ, reg(rCX), mem(rSt, stateDrawn+8*int64(nv.Entry)))
			a.jcc(condAE, fail)
		}
		if ir.IsStore(nv.Inst.Op) {
			c.checkStoreAddr(in, nv, fail)
		}
		for q, k := range nv.Sends {
			if k > 0 {
				c.checkRoom(nv.Queues[q], k, fail)
			}
		}
		// Commit. The next gap: countdown = Gaps[entry][Used %
		// NativeGaps]; Used++ (after the load: a service thread may then
		// overwrite the slot); for period 1 the countdown stays 1 and
		// Always counts the event.
		if nv.Period > 1 {
			a.op(xMOVQ, used, reg(rCX))
			a.op(xANDQ, imm(rpa.NativeGaps-1), reg(rCX))
			a.op(xSHLQ, imm(3), reg(rCX))
			a.op(xMOVQ, memIdx(rSt, rCX, stateGaps+8*rpa.NativeGaps*int64(nv.Entry)), reg(rCX))
			c.cdSetCX(cd)
			a.op(xADDQ, imm(1), used)
		} else {
			c.cdSetOne(cd)
			a.op(xADDQ, imm(1), mem(rSt, stateAlways+8*int64(nv.Entry)))
		}
		a.op(xADDQ, imm(1), mem(rSt, stateRecords))
		c.buildRecord(in, nv)
		c.runQuery(nv, back)
		a.bind(fail)
		c.cdSetOne(cd)
		a.jmp(exit)
	})
}

// The ring of gaps is indexed by Used & (NativeGaps-1).
var _ = [1]int{}[rpa.NativeGaps&(rpa.NativeGaps-1)]

// sampleDecision emits the sampling decision of OpSample in (RPA sec.
// 3.4.2: the countdown says how many more selected executions until the
// next sample, 1 meaning this one), which jumps to sampled with the
// countdown still 1 and otherwise decrements it and falls through. It
// returns the countdown's operand, a register (regAlloc.cd) or State
// memory. The hot path is one decrement and a branch, the countdown put
// back to 1 out of line:
//
//	SUBQ $1, countdown ; JEQ fix ; ... fix: MOVQ $1, countdown ; JMP sampled
//
// (A native query's decision, lowerNativeSample, jumps straight to its
// sampled path, which sets the countdown itself.)
func (c *compiler) sampleDecision(in ir.Inst, sampled *label) operand {
	a := c.a
	cd := c.countdown(in.Off)
	fix, back := &label{}, &label{}
	c.cdDec(cd)
	a.jcc(condEQ, fix)
	a.bind(back)
	c.cold = append(c.cold, func() {
		a.bind(fix)
		c.cdZeroed(cd, back)
		c.cdSetOne(cd)
		a.jmp(sampled)
	})
	return cd
}

// countdown returns the operand of sampling countdown off: the register
// that holds it (regAlloc.cd) or its word in State.
func (c *compiler) countdown(off int64) operand {
	if c.ra.cd != 0 && off == c.ra.cdOff {
		return reg(c.ra.cd)
	}
	return mem(rSt, StateCountdown+8*off)
}

// zext32 zero-extends AX from its low 32 bits.
func (c *compiler) zext32() {
	c.a.op(xSHLQ, imm(32), reg(rAX))
	c.a.op(xSHRQ, imm(32), reg(rAX))
}

// storeAddr puts the store's effective address in AX.
func (c *compiler) storeAddr(in ir.Inst, nv *rpa.Native) {
	if in.A.IsConst {
		c.load(ir.C(in.A.Const+uint64(nv.Inst.Imm)), rAX)
		return
	}
	c.load(in.A, rAX)
	c.a.op(xADDQ, imm(nv.Inst.Imm), reg(rAX))
}

// checkStoreAddr leaves through exit unless the store's address is in
// one of the writable fast intervals (the store's own check, see access;
// one outside them leaves, and the interpreter decides).
func (c *compiler) checkStoreAddr(in ir.Inst, nv *rpa.Native, exit *label) {
	a := c.a
	env := c.env
	c.storeAddr(in, nv)
	ok := &label{}
	_, wr, st, _ := interp.SpanOffsets(env.MemSize)
	lows := [2]uint64{env.WriteLo, env.GuardHi}
	spans := [2]int64{wr, st}
	for k := range 2 {
		if k == 1 && env.MemSize <= env.GuardHi {
			continue // no stack interval
		}
		c.load(ir.C(-lows[k]), rCX)
		a.op(xADDQ, reg(rAX), reg(rCX))
		a.op(xCMPQ, reg(rCX), mem(rMem, spans[k]))
		a.jcc(condB, ok)
	}
	a.jmp(exit)
	a.bind(ok)
}

// checkRoom leaves through exit unless queue q has room for k more
// messages: written - cachedRead <= slots - k in the producer's cached
// view, else after re-reading the read status (as mq's sendFast does).
func (c *compiler) checkRoom(q rpa.NativeQueue, k int, exit *label) {
	a := c.a
	ok := &label{}
	c.load(ir.C(uint64(q.Base)), rDX)
	a.op(xMOVQ, mem(rDX, mq.OffWritten), reg(rAX))
	a.op(xSUBQ, mem(rDX, mq.OffCachedRead), reg(rAX))
	a.op(xCMPQ, reg(rAX), imm(int64(q.Slots-k)))
	a.jcc(condBE, ok)
	a.op(xMOVQ, mem(rDX, mq.OffReadStatus), reg(rCX)) // the paper's periodic read of the read status
	a.op(xMOVQ, reg(rCX), mem(rDX, mq.OffCachedRead))
	a.op(xMOVQ, mem(rDX, mq.OffWritten), reg(rAX))
	a.op(xSUBQ, reg(rCX), reg(rAX))
	a.op(xCMPQ, reg(rAX), imm(int64(q.Slots-k)))
	a.jcc(condA, exit)
	a.bind(ok)
}

// buildRecord writes the record of the sampled execution into
// NativeState.Rec: the collected words in order (rpa.BuildRecord), zeros
// above. A branch's words that depend on its outcome are computed
// without a jump, from a mask of the compare's result (DX: all ones if
// taken), so that the sampled path does not pay for a second
// mispredicted branch after the decision's: each such word is
// notTaken ^ (mask & (taken ^ notTaken)).
func (c *compiler) buildRecord(in ir.Inst, nv *rpa.Native) {
	a := c.a
	if nv.Inst.IsBranch() {
		c.load(in.A, rAX)
		if in.B.IsConst && !ir.FitsInt32(int64(in.B.Const)) {
			c.load(in.B, rCX)
			a.op(xCMPQ, reg(rAX), reg(rCX))
		} else {
			a.op(xCMPQ, reg(rAX), c.opnd(in.B, rCX))
		}
		set := takenSet[nv.Inst.Op]
		a.op(set.op, none, reg(rDX))
		a.op(xMOVBQZX, reg(rDX), reg(rDX))
		if set.invert {
			a.op(xXORQ, imm(1), reg(rDX))
		}
		a.op(xNEGQ, none, reg(rDX))
	}
	for w := range rpa.MaxRecordWords {
		at := mem(rSt, stateRec+8*int64(w))
		if w >= len(nv.Fields) {
			a.op(xMOVQ, imm(0), at)
			continue
		}
		f := nv.Fields[w]
		if c.operandWord(in, nv, f) {
			a.op(xMOVQ, reg(rAX), at)
			continue
		}
		vN, vT := recordWord(nv, f, false), recordWord(nv, f, true)
		switch {
		case vN == vT && vN < 1<<31:
			a.op(xMOVQ, imm(int64(vN)), at)
			continue
		case vN == vT:
			c.load(ir.C(uint64(vN)), rAX)
		default:
			c.load(ir.C(uint64(vT^vN)), rAX)
			a.op(xANDQ, reg(rDX), reg(rAX))
			a.op(xXORQ, c.opnd(ir.C(uint64(vN)), rCX), reg(rAX))
		}
		a.op(xMOVQ, reg(rAX), at)
	}
}

// takenSet is the SETcc that gives a branch's outcome after CMPQ rs1,
// rs2, with invert when it gives the opposite (x86 has no SETNE or
// SETGE in this assembler).
var takenSet = map[interp.Op]struct {
	op     mnemonic
	invert bool
}{
	interp.OpBEQ: {xSETEQ, false}, interp.OpBNE: {xSETEQ, true},
	interp.OpBLT: {xSETLT, false}, interp.OpBGE: {xSETLT, true},
	interp.OpBLTU: {xSETCS, false}, interp.OpBGEU: {xSETCC, false},
}

// operandWord puts record field f into AX and reports true when it comes
// from the instruction's operands (a branch's rs1 and rs2, a store's
// value and address): the same for both outcomes.
func (c *compiler) operandWord(in ir.Inst, nv *rpa.Native, f rpa.Field) bool {
	a := c.a
	inst := nv.Inst
	// value loads the 64-bit operand v into AX: for a store's stored
	// value, truncated to the store's width.
	value := func(v ir.Val, stored bool) {
		c.load(v, rAX)
		if stored {
			switch ir.Width(inst.Op) {
			case 1:
				a.op(xMOVBQZX, reg(rAX), reg(rAX))
			case 2:
				a.op(xMOVWQZX, reg(rAX), reg(rAX))
			case 4:
				c.zext32()
			}
		}
	}
	low := func(v ir.Val, stored bool) { value(v, stored); c.zext32() }
	high := func(v ir.Val, stored bool) { value(v, stored); a.op(xSHRQ, imm(32), reg(rAX)) }
	if inst.IsBranch() {
		switch f {
		case rpa.FieldOp1:
			low(in.A, false)
		case rpa.FieldOp1Up:
			high(in.A, false)
		case rpa.FieldOp2:
			low(in.B, false)
		case rpa.FieldOp2Up:
			high(in.B, false)
		default:
			return false
		}
		return true
	}
	switch f { // a store
	case rpa.FieldOp1:
		low(in.B, true)
	case rpa.FieldOp1Up:
		high(in.B, true)
	case rpa.FieldOp2:
		low(in.A, false)
	case rpa.FieldOp2Up:
		high(in.A, false)
	case rpa.FieldOp3, rpa.FieldRes2:
		c.storeAddr(in, nv)
		c.zext32()
	default:
		return false
	}
	return true
}

// recordWord returns record field f of nv's instruction when it does not
// come from the operands (operandWord): constants of the instruction and,
// for a branch, of its outcome taken.
func recordWord(nv *rpa.Native, f rpa.Field, taken bool) uint32 {
	inst, pc := nv.Inst, nv.PC
	branch := inst.IsBranch()
	target := pc + uint64(inst.Imm)
	misc := uint32(inst.Op)<<rpa.MiscOpShift | uint32(nv.Tag&3)<<rpa.MiscTagShift
	if branch {
		if taken != (inst.Imm < 0) {
			misc |= rpa.MiscMispredict
		}
		if taken {
			misc |= rpa.MiscTaken
			if target <= pc {
				misc |= rpa.MiscBackward
			}
		}
	}
	switch {
	case f == rpa.FieldPC:
		return uint32(pc)
	case f == rpa.FieldThread:
		return rpa.Thread
	case f == rpa.FieldMisc:
		return misc
	case f == rpa.FieldRes1U:
		return 0
	case f >= rpa.FieldFRate:
		return 1 // the rates and latencies of the cost model (FieldValue)
	case branch && f == rpa.FieldOp3:
		return uint32(target)
	case branch && f == rpa.FieldRes1:
		return uint32(boolWord(taken))
	case branch && f == rpa.FieldRes2:
		if taken {
			return uint32(target)
		}
		return uint32(pc + inst.Len())
	}
	return 0 // a store's res1
}

func boolWord(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// runQuery emits the query instructions from nv.QPC (the engine's Run):
// each counts itself, evaluates comparison A then B, combines them with
// AND or OR, sends on a match and goes to its match or miss successor.
// The query's end jumps to done.
func (c *compiler) runQuery(nv *rpa.Native, done *label) {
	a := c.a
	n := len(nv.Code)
	labels := make([]*label, n+1)
	for k := range labels {
		labels[k] = &label{}
	}
	labels[n] = done
	next := func(qpc int, s rpa.Next, target uint8) *label {
		switch s {
		case rpa.NextStop:
			return done
		case rpa.NextBranch:
			return labels[min(int(target), n)]
		}
		return labels[qpc+1]
	}
	for qpc := nv.QPC; qpc < n; qpc++ {
		q := nv.Code[qpc]
		a.bind(labels[qpc])
		a.op(xADDQ, imm(1), mem(rSt, stateInsts))
		match, miss := &label{}, &label{}
		if q.Or {
			c.compare(q.A, q.Imm, true, match)
			c.compare(q.B, q.Imm, false, miss)
		} else {
			c.compare(q.A, q.Imm, false, miss)
			c.compare(q.B, q.Imm, false, miss)
		}
		a.bind(match)
		if q.Action == rpa.ActSend {
			c.send(nv.Queues[q.Arg], int(q.Arg))
		}
		a.jmp(next(qpc, q.Match, q.Target))
		a.bind(miss)
		a.jmp(next(qpc, q.Miss, q.Target))
	}
	if nv.QPC >= n {
		a.jmp(done)
	}
}

// Unsigned conditions of the comparisons that read a word: the jump
// taken when the comparison succeeds.
var cmpCond = map[rpa.CmpOp]cond{
	rpa.CmpLT: condB, rpa.CmpGE: condAE, rpa.CmpEQ: condEQ,
	rpa.CmpNE: condNE, rpa.CmpGT: condA, rpa.CmpLE: condBE,
	rpa.CmpBCLR: condEQ, rpa.CmpBSET: condEQ,
}

// negCond is the condition that is true when cmpCond's is false.
var negCond = map[cond]cond{
	condB: condAE, condAE: condB, condEQ: condNE, condNE: condEQ, condA: condBE, condBE: condA,
}

// compare jumps to l when comparison k's result equals want (the
// engine's compare; no FILTER, which Native excludes).
func (c *compiler) compare(k rpa.Cmp, imm16 uint16, want bool, l *label) {
	a := c.a
	switch k.Op {
	case rpa.CmpTrue:
		if want {
			a.jmp(l)
		}
		return
	case rpa.CmpFalse:
		if !want {
			a.jmp(l)
		}
		return
	}
	a.op(xMOVQ, mem(rSt, stateRec+8*int64(k.Word%rpa.MaxRecordWords)), reg(rAX))
	if k.Byte != 0 {
		a.op(xSHRQ, imm(8*int64(k.Byte)), reg(rAX))
	}
	switch k.Size {
	case rpa.Size8:
		a.op(xMOVBQZX, reg(rAX), reg(rAX))
	case rpa.Size16:
		a.op(xMOVWQZX, reg(rAX), reg(rAX))
	}
	i := int64(imm16)
	switch k.Op {
	case rpa.CmpBCLR:
		a.op(xTESTQ, imm(i), reg(rAX))
	case rpa.CmpBSET:
		a.op(xANDQ, imm(i), reg(rAX))
		a.op(xCMPQ, reg(rAX), imm(i))
	default:
		a.op(xCMPQ, reg(rAX), imm(i))
	}
	cc := cmpCond[k.Op]
	if !want {
		cc = negCond[cc]
	}
	a.jcc(cc, l)
}

// send writes NativeState.Rec into queue q (number n) by the mq
// protocol, as mq's sendFast does; room was checked before the commit:
//
//	n = written ; slot = slots + (n & mask) * SlotBytes
//	PREFETCHW slots + ((n + d) & mask) * SlotBytes    ; prefetchDistance
//	slot[0..6] = Rec[0..6] ; slot.ready = n+1 ; written = n+1
//
// The ready word is stored after the record words and written after the
// ready word with plain MOVs: x86-TSO keeps stores in program order, so
// a consumer that sees the ready word sees the record.
func (c *compiler) send(q rpa.NativeQueue, n int) {
	a := c.a
	c.load(ir.C(uint64(q.Base)), rDX)
	a.op(xMOVQ, mem(rDX, mq.OffWritten), reg(rCX))
	a.op(xANDQ, imm(int64(q.Slots-1)), reg(rCX))
	a.op(xSHLQ, imm(6), reg(rCX)) // * SlotBytes
	a.op(xLEAQ, memIdx(rDX, rCX, mq.OffSlots), reg(rCX))
	if d := prefetchDistance(q.Slots); d > 0 {
		a.op(xMOVQ, mem(rDX, mq.OffWritten), reg(rAX))
		a.op(xADDQ, imm(d), reg(rAX))
		a.op(xANDQ, imm(int64(q.Slots-1)), reg(rAX))
		a.op(xSHLQ, imm(6), reg(rAX)) // * SlotBytes
		a.op(xPREFETCHW, memIdx(rDX, rAX, mq.OffSlots), none)
	}
	for w := range mq.MsgWords {
		a.op(xMOVQ, mem(rSt, stateRec+8*int64(w)), reg(rAX))
		a.op(xMOVQ, reg(rAX), mem(rCX, 8*int64(w)))
	}
	a.op(xMOVQ, mem(rDX, mq.OffWritten), reg(rAX))
	a.op(xADDQ, imm(1), reg(rAX))
	a.op(xMOVQ, reg(rAX), mem(rCX, mq.ReadyOffset)) // ready word = n+1, after the record
	a.op(xMOVQ, reg(rAX), mem(rDX, mq.OffWritten))
	a.op(xADDQ, imm(1), mem(rSt, stateSent+8*int64(n)))
}

// prefetchDistance is how many messages ahead of the one it writes a send
// asks for its slot's cache line in the state for writing (PREFETCHW),
// 0 for none. The service thread reads each slot and clears its ready
// word, so every slot's line last belongs to the consumer's core when
// the producer comes round to it again; the producer's stores to it then
// wait for the line, and in guests whose own stores keep the store
// buffer busy (bintree's allocations) that wait stalled the guest:
// sends cost bintree 63 ns each against matmul's 12. Fetched 16 sends
// ahead (some 3 µs at 1/256), the line is the producer's by the time
// it writes: the edge query at 1/256 took bintree 384 -> 341 ms and
// spectral 1521 -> 1402 ms (medians of 16 and 8 interleaved runs; 8,
// 32 and 64 ahead measured alike). A slot 16 ahead was written 112
// sends ago, so the consumer, which drains every 10 µs, has read it;
// were it still unread, the prefetch would only move its line early,
// not change it. A queue of fewer than 128 slots gets none.
func prefetchDistance(slots int) int64 {
	if slots < 128 {
		return 0
	}
	return 16
}
