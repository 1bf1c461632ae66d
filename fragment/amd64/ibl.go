// Indirect branch lookup (IBL): the table layout shared with the code cache, and the probe an indirect exit stub runs.

package amd64

// The indirect branch lookup table maps a guest pc to a fragment entry. It
// holds IBLEntries slots of IBLSlotBytes, {guest pc (tag), host entry
// address}, in IBLSets sets of IBLWays slots: pc may be in either slot of
// set IBLSet(pc), the two sharing a cache line's half. The code cache
// fills it (IBLPlace) and the probe below reads it; both use these
// constants, and a test runs the probe against IBLSet.
//
// Two ways, not one: a direct-mapped table keeps one of two hot targets
// whose pcs are a multiple of IBLSets*2 bytes apart (128 KiB), and every
// jump to the other leaves to the dispatcher. The RV64GC ledger guest's
// hottest return target shared its slot with another fragment's head, and
// 197,429 of its 218,212 cache exits were that miss. DynamoRIO's IBL
// tables are hashed and open-addressed (Bruening, "Efficient,
// Transparent, and Comprehensive Runtime Code Manipulation", section
// 4.3); a second way in the same line is the cheapest step toward that:
// a hit in the first way costs what it did.
const (
	// IBLEntries is the number of slots (a power of 2).
	IBLEntries = 1 << 16
	// IBLWays is the number of slots in a set, IBLSets the number of sets.
	IBLWays = 2
	IBLSets = IBLEntries / IBLWays
	// IBLSlotBytes is the size of a slot: two 8-byte words.
	IBLSlotBytes = 16
	// IBLEmpty is the tag of an empty slot. No looked-up target can equal
	// it: a jalr clears bit 0 of its target, and IBLEmpty is odd. So a guest value, 0 included, can never select an
	// empty slot's entry address, and a hit costs no more than the one
	// compare with the tag.
	//
	// A zeroed slot {0, 0} is empty too in every set but IBLSet(0): its
	// tag can only equal target 0, and target 0 probes set IBLSet(0)
	// alone. So a table fresh from the kernel (zero pages) needs only
	// that set written (IBLClear): the other pages are not touched, and
	// never faulted in, until a fragment is entered in them.
	IBLEmpty = ^uint64(0)

	iblShift    = 1 // guest instructions are 2-byte aligned (compressed ones)
	iblSetShift = 5 // log2(IBLWays * IBLSlotBytes)
)

// IBLSet returns the set of guest pc in the table, in [0, IBLSets): its
// slots are IBLWays*IBLSet(pc) and the one after.
func IBLSet(pc uint64) uint64 { return (pc >> iblShift) & (IBLSets - 1) }

// IBLClear empties a table of IBLEntries slots (2*IBLEntries words) that
// is either fresh from the kernel (all zero) or in use: zero every word,
// or skip that if fresh, and tag the slots of set IBLSet(0) with IBLEmpty
// (see IBLEmpty for why zeros are empty everywhere else).
func IBLClear(table []uint64, fresh bool) {
	if !fresh {
		clear(table)
	}
	i := 2 * IBLWays * IBLSet(0)
	for w := range uint64(IBLWays) {
		table[i+2*w], table[i+2*w+1] = IBLEmpty, 0
	}
}

// IBLPlace enters guest pc with host entry address entry in table: in
// the slot of its set that holds pc already, else in the first, which
// is empty (tag IBLEmpty, or 0 outside set IBLSet(0): a slot never
// written) or whose occupant moves to the second (the second's is
// dropped): the set's slots are in order of placement, newest first,
// and a third head drops the oldest.
func IBLPlace(table []uint64, pc, entry uint64) {
	i := 2 * IBLWays * IBLSet(pc)
	w0, w1 := table[i:i+2], table[i+2:i+4]
	free := func(tag uint64) bool { return tag == IBLEmpty || tag == 0 && IBLSet(pc) != IBLSet(0) }
	switch {
	case w0[0] == pc:
		w0[1] = entry
	case w1[0] == pc:
		w1[1] = entry
	case free(w0[0]):
		w0[0], w0[1] = pc, entry
	default: // the first's occupant moves down over the second's, or into it if empty
		w1[0], w1[1] = w0[0], w0[1]
		w0[0], w0[1] = pc, entry
	}
}

// IBLRemove empties the slot that holds guest pc, if one does.
func IBLRemove(table []uint64, pc uint64) {
	i := 2 * IBLWays * IBLSet(pc)
	for w := range uint64(IBLWays) {
		if table[i+2*w] == pc {
			table[i+2*w], table[i+2*w+1] = IBLEmpty, 0
		}
	}
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
//	      CX = IBL + IBLSet(AX) * 32         ; MOVL, ANDL, SHLQ, ADDQ
//	      CMPQ (CX), AX ; JNE second         ; an empty slot's tag never matches
//	      JMP 8(CX)
//	second: CMPQ 16(CX), AX ; JNE out
//	      JMP 24(CX)
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
	c.giveBack(e)
	out := &label{}
	c.extendStale(e.stale)
	e.stale = 0
	c.canonicalizeDirty(e, ^uint32(0))
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
	retired := int64(e.Retired)
	if c.ra.packed && c.ra.cdHome {
		retired <<= cdBits // R12 stays packed into the lookup's target
	}
	a.op(xSUBQ, imm(retired), reg(rBudget))
	if c.noIBL {
		c.writeHomes(e, c.ra.resident|c.ra.evicted)
		c.leaveIndirect(e)
		return
	}
	a.jcc(condLE, out)
	// IBLSet(AX)*32 is (AX & (IBLSets-1)<<1) << 4: three instructions.
	a.op(xMOVL, reg(rAX), reg(rCX))
	a.op(xANDL, imm((IBLSets-1)<<iblShift), reg(rCX))
	a.op(xSHLQ, imm(iblSetShift-iblShift), reg(rCX))
	a.op(xADDQ, mem(rSt, StateIBL), reg(rCX))
	second := &label{}
	a.op(xCMPQ, mem(rCX, 0), reg(rAX))
	a.jcc(condNE, second)
	a.op(xJMP, none, mem(rCX, 8))
	a.bind(second)
	a.op(xCMPQ, mem(rCX, IBLSlotBytes), reg(rAX))
	a.jcc(condNE, out)
	a.op(xJMP, none, mem(rCX, IBLSlotBytes+8))
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
