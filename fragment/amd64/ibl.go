// Indirect branch lookup (IBL): the table layout shared with the code cache, and the probe an indirect exit stub runs.

package amd64

// The indirect branch lookup table maps a guest pc to a fragment entry. It
// holds IBLEntries slots of IBLSlotBytes: {guest pc (tag), host entry
// address}, the slot of pc being IBLIndex(pc). The code cache fills it
// (with IBLIndex) and the probe below reads it; both use these constants,
// and a test runs the probe against IBLIndex.
const (
	// IBLEntries is the number of slots (a power of 2).
	IBLEntries = 1 << 16
	// IBLSlotBytes is the size of a slot: two 8-byte words.
	IBLSlotBytes = 16
	// IBLEmpty is the tag of an empty slot. No looked-up target can equal
	// it: a jalr clears bit 0 of its target, and IBLEmpty is odd. So a guest value, 0 included, can never select an
	// empty slot's entry address, and a hit costs no more than the one
	// compare with the tag.
	//
	// A zeroed slot {0, 0} is empty too in every slot but IBLIndex(0):
	// its tag can only equal target 0, and target 0 probes slot
	// IBLIndex(0) alone. So a table fresh from the kernel (zero pages)
	// needs only that one slot written (IBLClear): the other pages are
	// not touched, and never faulted in, until a fragment is entered in
	// them.
	IBLEmpty = ^uint64(0)

	iblShift     = 1 // guest instructions are 2-byte aligned (compressed ones)
	iblSlotShift = 4 // log2(IBLSlotBytes)
)

// IBLIndex returns the slot of guest pc in the table, in [0, IBLEntries).
func IBLIndex(pc uint64) uint64 { return (pc >> iblShift) & (IBLEntries - 1) }

// IBLClear empties a table of IBLEntries slots (2*IBLEntries words) that
// is either fresh from the kernel (all zero) or in use: zero every word,
// or skip that if fresh, and tag slot IBLIndex(0) with IBLEmpty (see
// IBLEmpty for why zeros are empty everywhere else).
func IBLClear(table []uint64, fresh bool) {
	if !fresh {
		clear(table)
	}
	i := 2 * IBLIndex(0)
	table[i], table[i+1] = IBLEmpty, 0
}

// emitIndirectStub emits the stub of a jalr whose target (in AX) is not
// the recorded one: it completes the jalr in State, charges the budget and
// looks the target up in the indirect branch lookup table, jumping
// straight to the fragment found there (DynamoRIO's IBL):
//
//	stub: MOVQ host, X[r](R15) ...           ; write back dirty registers
//	      MOVQ $pc+len, X[rd](R15)           ; the link register (pc + 2 or 4)
//	      MOVQ X[h](R15), home ...           ; reload borrowed home registers
//	      SUBQ $retired, R12 ; JLE out       ; poll point
//	      CX = IBL + IBLIndex(AX) * 16       ; SHRQ, ANDL, SHLQ, ADDQ
//	      CMPQ (CX), AX ; JNE out            ; an empty slot's tag never matches
//	      JMP 8(CX)
//	out:  MOVQ home, X[h](R15) ...           ; write back every home register
//	      MOVQ AX, PC(R15) ; MOVL $id, Exit(R15) ; RET
//
// Every target is even (and legal: with compressed instructions any
// even address may start one), which an empty slot's odd tag
// (IBLEmpty) cannot equal: target 0 is a miss like any other. With
// Options.NoIBL the stub has no lookup (from
// the SUBQ it charges and leaves).
func (c *compiler) emitIndirectStub(e *exitStub) {
	a := c.a
	a.bind(e.stub)
	out := &label{}
	c.extendStale(e.stale)
	e.stale = 0
	c.writeBack(e)
	if e.rd != 0 {
		// The link register: in its home if it is a resident home
		// register, else in State (from where reloadHomes takes it if
		// it is a borrowed one).
		switch {
		case c.ra.resident&(1<<e.rd) != 0:
			a.op(xMOVQ, imm(int64(e.link)), reg(c.ra.home[e.rd]))
		case int64(e.link) == int64(int32(e.link)):
			a.op(xMOVQ, imm(int64(e.link)), mem(rSt, regOff(e.rd)))
		default:
			a.op(xMOVQ, imm(int64(e.link)), reg(rCX))
			a.op(xMOVQ, reg(rCX), mem(rSt, regOff(e.rd)))
		}
	}
	c.reloadHomes()
	a.op(xSUBQ, imm(int64(e.Retired)), reg(rBudget))
	if c.noIBL {
		c.writeHomes(e, c.ra.resident|c.ra.evicted)
		c.leaveIndirect(e)
		return
	}
	a.jcc(condLE, out)
	a.op(xMOVQ, reg(rAX), reg(rCX))
	a.op(xSHRQ, imm(iblShift), reg(rCX))
	a.op(xANDL, imm(IBLEntries-1), reg(rCX))
	a.op(xSHLQ, imm(iblSlotShift), reg(rCX))
	a.op(xADDQ, mem(rSt, StateIBL), reg(rCX))
	a.op(xCMPQ, mem(rCX, 0), reg(rAX))
	a.jcc(condNE, out)
	a.op(xJMP, none, mem(rCX, 8))
	a.bind(out)
	c.writeHomes(e, c.ra.resident|c.ra.evicted)
	c.leaveIndirect(e)
}

// leaveIndirect emits the way out of an indirect stub: the target (AX)
// becomes the guest pc, and the stub returns with its exit ID.
func (c *compiler) leaveIndirect(e *exitStub) {
	a := c.a
	a.op(xMOVQ, reg(rAX), mem(rSt, StatePC))
	e.id = a.movExitID(StateExit)
	a.op(xRET, none, none)
}
