// The packed countdown: the sampling countdown in R12's low 16 bits, the budget in the 48 above, so that the countdown takes no guest register.

package amd64

// A sampled query's countdown (RPA sec. 3.4.2: how many more selected
// executions until the next sample, 1 meaning this one) is decremented
// at every selected instruction, so native code keeps it in a register:
// under the engine's queries a home register across linked fragments
// (Options.CountdownHome), else a looping fragment's own
// (sampleCountdown). A register for it costs the guest registers one:
// measured with the decisions themselves removed, that loss alone was
// some half of what the edge query at 1/256 cost (RV64GC bintree +21%,
// fsm +25%, qsort +13%, listproc +12%; medians of 7 alternating runs).
// The budget's register, R12, is one every fragment holds anyway, and
// x86's 16-bit forms (SUBW, ADDW, LEAW, MOVW) change a register's low 16
// bits and leave the other 48 as they were. So, while native code runs,
//
//	R12 = (budget - 1) << 16 | lo
//
// where lo, in [1, 0xFFFF], is the countdown's low part and the rest of
// it, the excess, waits in its State.Countdown word. A decision is
// "SUBW $1, R12; JEQ sampled", as the register's was "SUBQ $1; JEQ", and
// a pass's merged test "SUBW $k, R12; JLS slow" (merge.go). With lo at
// least 1, R12 > 0 exactly when budget > 0, so a budget test is
// "SUBQ $retired<<16, R12; JGT" or "JLE", as exact as before.
//
// Where R12 is packed and where it is the budget: a countdown home is
// packed at the dispatcher's entry of every fragment (cdPack) and stays
// packed through links and the indirect branch lookup, whose stubs
// charge the budget shifted; the stubs that return to the dispatcher
// unpack it (cdUnpack, with the other homes) before they charge the
// budget. A fragment's own countdown is packed at both its entries and
// unpacked in every exit stub's write back, so that outside it R12 is
// the budget; only its back edge charges the packed form. The
// trampoline, the dispatcher and the engine see the budget in
// State.Budget and the whole countdown in its word, as before.
//
// A countdown past 0xFFFF (a gap drawn at period 8,192 is one about
// once in 3,000) keeps 0xFFFF in lo and the rest as the excess; when lo
// reaches 0 with an excess left, the decision is not a sample: lo takes
// the next part of the excess (cdZeroed) and the code goes on. With the
// excess zero, a countdown that reaches zero samples, as before. A bulk
// loop (bulk.go) runs at most lo-1 iterations, which the excess only
// makes fewer than the countdown allows, never more.
//
// Not the paper's: its countdown is a register of the profiling unit.
// Options.NoCountdownPack gives the countdown a register of its own.

// cdBits is the width of the countdown's part of R12; the budget is
// shifted left by as much.
const cdBits = 16

// cdMax is the largest countdown lo holds (Options.PackedCountdownMax
// may lower it: compiler.cdMax).
const cdMax = 1<<cdBits - 1

// cdSlot is the packed countdown's State word: the whole countdown
// outside the fragment, its excess inside.
func (c *compiler) cdSlot() operand { return mem(rSt, StateCountdown+8*c.ra.cdOff) }

// cdPack emits the entry's packing: R12 = (budget-1)<<16 | lo, with lo
// = min(countdown, 0xFFFF) and the rest left in the countdown's word.
//
//	MOVQ cd(R15), CX ; CMPQ CX, $0xFFFF ; JA big ; MOVQ $0, cd(R15)
//	back: SUBQ $1, R12 ; SHLQ $16, R12 ; ORQ CX, R12
//	big:  SUBQ $0xFFFF, cd(R15) ; MOVL $0xFFFF, CX ; JMP back   (out of line)
func (c *compiler) cdPack() {
	a := c.a
	big, back := &label{}, &label{}
	a.op(xMOVQ, c.cdSlot(), reg(rCX))
	a.op(xCMPQ, reg(rCX), imm(c.cdMax))
	a.jcc(condA, big)
	a.op(xMOVQ, imm(0), c.cdSlot())
	a.bind(back)
	a.op(xSUBQ, imm(1), reg(rBudget))
	a.op(xSHLQ, imm(cdBits), reg(rBudget))
	a.op(xORQ, reg(rCX), reg(rBudget))
	c.cold = append(c.cold, func() {
		a.bind(big)
		a.op(xSUBQ, imm(c.cdMax), c.cdSlot())
		a.op(xMOVL, imm(c.cdMax), reg(rCX))
		a.jmp(back)
	})
}

// cdUnpack emits an exit's unpacking, before the stub charges the budget
// (it clobbers CX, not AX, which holds an indirect exit's target):
//
//	MOVWQZX R12, CX ; ADDQ CX, cd(R15) ; SARQ $16, R12 ; ADDQ $1, R12
func (c *compiler) cdUnpack() {
	a := c.a
	a.op(xMOVWQZX, reg(rBudget), reg(rCX))
	a.op(xADDQ, reg(rCX), c.cdSlot())
	a.op(xSARQ, imm(cdBits), reg(rBudget))
	a.op(xADDQ, imm(1), reg(rBudget))
}

// packedIn reports whether countdown operand cd (from countdown) is the
// packed countdown in R12's low 16 bits: no other countdown is ever R12
// (giveBudget lends R12 only to a fragment without a countdown register).
func packedIn(cd operand) bool { return cd == reg(rBudget) }

// cdDec emits a decision's decrement of countdown operand cd (the
// register, its packed part, or State); ZF then says it reached zero.
func (c *compiler) cdDec(cd operand) {
	if packedIn(cd) {
		c.a.op(xSUBW, imm(1), reg(rBudget))
		return
	}
	c.a.op(xSUBQ, imm(1), cd)
}

// cdAdd emits the increment of the register countdown by k (at most 127
// when packed).
func (c *compiler) cdAdd(k int64) {
	if c.ra.packed {
		c.a.op(xADDW, imm(k), reg(rBudget))
		return
	}
	c.a.op(xADDQ, imm(k), reg(c.ra.cd))
}

// cdSetOne emits countdown = 1 (this selected execution is the sample),
// on countdown operand cd: the register, its packed part, or State. A
// packed countdown's excess is zero here: both callers come after
// cdZeroed found it so.
func (c *compiler) cdSetOne(cd operand) {
	if packedIn(cd) {
		c.a.op(xMOVW, imm(1), reg(rBudget))
		return
	}
	c.a.op(xMOVQ, imm(1), cd)
}

// cdSetCX emits countdown = CX (a gap, at least 1) on countdown operand
// cd; a packed one takes up to 0xFFFF of it in lo and leaves the rest as
// the excess (which is zero when a sample sets the next gap).
func (c *compiler) cdSetCX(cd operand) {
	a := c.a
	if !packedIn(cd) {
		a.op(xMOVQ, reg(rCX), cd)
		return
	}
	big, done := &label{}, &label{}
	a.op(xCMPQ, reg(rCX), imm(c.cdMax))
	a.jcc(condA, big)
	a.op(xMOVW, reg(rCX), reg(rBudget))
	a.jmp(done)
	a.bind(big)
	a.op(xSUBQ, imm(c.cdMax), reg(rCX))
	a.op(xMOVQ, reg(rCX), c.cdSlot())
	a.op(xMOVW, imm(int64(int16(c.cdMax))), reg(rBudget))
	a.bind(done)
}

// cdZeroed emits, where a packed countdown's decision found lo zero,
// the test of its excess: with an excess left the execution is not
// sampled, lo takes min(excess, 0xFFFF) of it and the code goes on at
// back; with none it falls through to the sample. Unpacked countdowns
// have no excess: nothing is emitted.
func (c *compiler) cdZeroed(cd operand, back *label) {
	a := c.a
	if !packedIn(cd) {
		return
	}
	sample, big := &label{}, &label{}
	a.op(xCMPQ, c.cdSlot(), imm(0))
	a.jcc(condEQ, sample)
	a.op(xMOVQ, c.cdSlot(), reg(rCX))
	a.op(xCMPQ, reg(rCX), imm(c.cdMax))
	a.jcc(condA, big)
	a.op(xMOVW, reg(rCX), reg(rBudget))
	a.op(xMOVQ, imm(0), c.cdSlot())
	a.jmp(back)
	a.bind(big)
	a.op(xSUBQ, imm(c.cdMax), c.cdSlot())
	a.op(xMOVW, imm(int64(int16(c.cdMax))), reg(rBudget))
	a.jmp(back)
	a.bind(sample)
}
