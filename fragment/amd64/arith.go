// ALU lowering: one IR ALU or M-extension instruction -> x86-64 instructions.

package amd64

import (
	"golang.org/x/sys/cpu"

	"rvdyn/fragment/ir"
	"rvdyn/interp"
)

// hostBMI2 reports whether the host has BMI2, whose shifts by a register
// (SHLX, SHRX, SARX) and rotate (RORX) write a register apart from the
// source and take the count from any register (Options.NoBMI2).
var hostBMI2 = cpu.X86.HasBMI2

// shiftsX are the shifts by a register amount in BMI2's forms.
var shiftsX = map[interp.Op]mnemonic{
	interp.OpSLL: xSHLXQ, interp.OpSRL: xSHRXQ, interp.OpSRA: xSARXQ,
	interp.OpSLLW: xSHLXL, interp.OpSRLW: xSHRXL, interp.OpSRAW: xSARXL,
}

// shiftX lowers a shift by a register amount (Dst != 0) with BMI2:
// "SHLXQ count, src, dst" reads the count from whatever register holds
// it and the source where it lives (a host register or its State
// slot), where x86's other shifts count in CL and shift in place,
// costing a copy of the count into CX and of the source into the
// destination. The hardware masks the count to 6 bits (5 for the L
// forms), as RISC-V does; the L forms read the low word and write it
// zero-extended, finished like any W result (finish32).
func (c *compiler) shiftX(in ir.Inst) {
	cnt := c.hostOf(in.B)
	if cnt == 0 {
		c.load(in.B, rCX)
		cnt = rCX
	}
	src := c.opnd(in.A, rDX)
	if src.isImm() { // the source is a register or memory
		c.load(in.A, rDX)
		src = reg(rDX)
	}
	w := c.work(in, ir.Val{})
	c.a.op3(shiftsX[in.Op], reg(cnt), src, reg(w))
	if isW(in.Op) {
		c.finish32(in, w)
	}
	c.store(w, in.Dst)
}

// clearsUpper reports whether in is an and with a constant in [0, 2^31)
// (gcc's andi of an index, i & 3): its ANDQ clears the upper half
// whatever a stale operand held there, so the result is exact, not
// stale, and a full read of it (an address) needs no extension.
func clearsUpper(in ir.Inst) bool {
	return in.Op == interp.OpAND && (nonNeg32(in.A) || nonNeg32(in.B))
}

// inState reports whether op has an x86 form that operates on a memory
// destination in place (64-bit add, sub and the bitwise ops; not imul,
// and not the W ops, whose results must be sign-extended).
func inState(op interp.Op) bool {
	switch op {
	case interp.OpADD, interp.OpSUB, interp.OpAND, interp.OpOR, interp.OpXOR:
		return true
	}
	return false
}

// arith lowers an ALU or M-extension instruction (Dst != 0).
func (c *compiler) arith(in ir.Inst) {
	a := c.a
	op := in.Op
	x, y := in.A, in.B
	isMul := op == interp.OpMUL || op == interp.OpMULW
	switch {
	case inState(op) && c.host(in.Dst) == 0 && x.IsReg(in.Dst) && !c.sx.rawStale:
		// rd = rd op y with rd in State (a pointer or counter the
		// allocator left there): one read-modify-write of its slot
		src := c.opnd(y, rCX)
		if !y.IsConst && c.hostOf(y) == 0 {
			c.load(y, rCX) // y in State too: no memory-to-memory form
			src = reg(rCX)
		}
		a.op(aluRR[op], src, mem(rSt, regOff(in.Dst)))
	case aluRR[op] != 0:
		if commutative[op] && y.IsReg(in.Dst) && !x.IsReg(in.Dst) && c.host(in.Dst) != 0 {
			// rd = x op rd: operate on rd's register in place
			w := c.host(in.Dst)
			src := c.opnd(x, rCX)
			if src.isImm() && isMul {
				c.load(x, rCX) // imul takes no immediate here
				src = reg(rCX)
			}
			a.op(aluRR[op], src, reg(w))
			if isW(op) || c.sx.rawStale && !clearsUpper(in) {
				c.finish32(in, w)
			}
			return
		}
		w := c.work(in, y)
		if op == interp.OpADD && y.IsConst && ir.FitsInt32(int64(y.Const)) && c.hostOf(x) != 0 && c.hostOf(x) != w {
			a.op(xLEAQ, mem(c.hostOf(x), int64(y.Const)), reg(w)) // rd = rs1 + imm in one step
		} else {
			c.load(x, w)
			src := c.opnd(y, rCX)
			if src.isImm() && isMul {
				c.load(y, rCX)
				src = reg(rCX)
			}
			a.op(aluRR[op], src, reg(w))
		}
		if isW(op) || c.sx.rawStale && !clearsUpper(in) {
			c.finish32(in, w)
		}
		c.store(w, in.Dst)
	case shifts[op] != 0 && !y.IsConst && c.bmi2:
		c.shiftX(in)
	case shifts[op] != 0:
		if !y.IsConst {
			c.load(y, rCX)
		}
		w := c.work(in, ir.Val{}) // rs2 is safe in CX
		c.load(x, w)
		switch {
		case !y.IsConst:
			a.op(shifts[op], reg(rCX), reg(w))
		case isW(op):
			a.op(shifts[op], imm(int64(y.Const&31)), reg(w))
		default:
			a.op(shifts[op], imm(int64(y.Const&63)), reg(w))
		}
		// SHRL by 1..31 writes a 32-bit value with bit 31 clear and
		// zeroes the upper half: the register already holds srlw's
		// sign-extended result, exact rather than stale.
		if isW(op) && !(op == interp.OpSRLW && y.IsConst && y.Const&31 != 0) {
			c.finish32(in, w)
		}
		c.store(w, in.Dst)
	case op == interp.OpSLT || op == interp.OpSLTU:
		set := xSETLT
		if op == interp.OpSLTU {
			set = xSETCS
		}
		// The first operand compared where it is, the flag zero-extended
		// straight into the destination's register.
		xr := c.hostOf(x)
		if xr == 0 {
			c.load(x, rAX)
			xr = rAX
		}
		a.op(xCMPQ, reg(xr), c.opnd(y, rCX))
		a.op(set, none, reg(rAX))
		d := c.host(in.Dst)
		if d == 0 {
			d = rAX
		}
		a.op(xMOVBQZX, reg(rAX), reg(d))
		c.store(d, in.Dst)
	default:
		c.load(y, rCX)
		c.load(x, rAX)
		switch op {
		case interp.OpMULH:
			a.op(xIMULQ, reg(rCX), none)
			a.op(xMOVQ, reg(rDX), reg(rAX))
		case interp.OpMULHU:
			a.op(xMULQ, reg(rCX), none)
			a.op(xMOVQ, reg(rDX), reg(rAX))
		case interp.OpMULHSU:
			// mulhu(a, b) - (a < 0 ? b : 0)
			a.op(xMULQ, reg(rCX), none)
			c.load(x, rAX)
			a.op(xSARQ, imm(63), reg(rAX))
			a.op(xANDQ, reg(rCX), reg(rAX))
			a.op(xSUBQ, reg(rAX), reg(rDX))
			a.op(xMOVQ, reg(rDX), reg(rAX))
		default:
			c.divide(op, in.PC)
			if isW(op) {
				a.op(xMOVLQSX, reg(rAX), reg(rAX))
			}
		}
		c.store(rAX, in.Dst)
	}
}

// narrowDivide goes on from divide's test of a zero divisor for a 64-bit
// division: when dividend and divisor both fit in 32 bits unsigned (both
// non-negative, so signed and unsigned agree), one 32-bit DIVL gives the
// quotient and remainder, which x86 zero-extends. A 64-bit IDIVQ or DIVQ
// takes two to four times as long on the Skylake-era cores (42-95 cycles
// against 26 in Agner Fog's instruction tables), and guests divide small
// values in 64 bits (bytecode's prime sieve, `long` counters). Wider
// operands take the 64-bit path, out of line, with the signed overflow's
// test (a divisor of -1 is wide):
//
//	MOVQ AX, DX ; ORQ CX, DX ; SHRQ $32, DX ; JNE wide ; DIVL CX ; (MOVL DX, AX)
func (c *compiler) narrowDivide(signed, isRem bool, pc uint64, done *label) {
	a := c.a
	wide := &label{}
	a.op(xMOVQ, reg(rAX), reg(rDX))
	a.op(xORQ, reg(rCX), reg(rDX))
	a.op(xSHRQ, imm(32), reg(rDX))
	a.jcc(condNE, wide) // DX is 0 below: the dividend's upper half
	a.op(xDIVL, reg(rCX), none)
	if isRem {
		a.op(xMOVL, reg(rDX), reg(rAX))
	}
	a.bind(done)
	c.cold = append(c.cold, func() {
		c.mark(pc)
		a.bind(wide)
		// Already out of line: the answer for -1 right here.
		c.fullDivide(false, signed, isRem, func(answer func()) {
			divide := &label{}
			a.jcc(condNE, divide)
			answer()
			a.jmp(done)
			a.bind(divide)
		})
		a.jmp(done)
	})
}

// divide lowers div, divu, rem, remu and their W forms with AX = rs1 and
// CX = rs2, leaving the result in AX. x86 traps where RISC-V defines a
// result, so the zero divisor and the signed overflow (MinInt / -1) are
// tested first; their answers are out of line, so the path a division
// takes has no jump but the two not taken (bytecode's prime sieve
// divides in its hottest loop):
//
//	TESTQ CX, CX ; JEQ zero ; CMPQ CX, $-1 ; JEQ minus1 ; CQO ; IDIVQ CX ; (MOVQ DX, AX)
func (c *compiler) divide(op interp.Op, pc uint64) {
	a := c.a
	w := isW(op)
	signed := op == interp.OpDIV || op == interp.OpREM || op == interp.OpDIVW || op == interp.OpREMW
	isRem := op == interp.OpREM || op == interp.OpREMU || op == interp.OpREMW || op == interp.OpREMUW
	test := xTESTQ
	if w {
		test = xTESTL
	}
	done := &label{}
	// special emits a jump on the flags to an answer out of line, which
	// goes on after the division.
	special := func(answer func()) {
		l := &label{}
		a.jcc(condEQ, l)
		c.cold = append(c.cold, func() {
			c.mark(pc)
			a.bind(l)
			answer()
			a.jmp(done)
		})
	}
	a.op(test, reg(rCX), reg(rCX))
	special(func() { // divisor zero: quotient all ones, remainder the dividend (AX)
		if !isRem {
			a.op(xMOVQ, imm(-1), reg(rAX))
		}
	})
	if !w && !c.noNarrowDiv {
		c.narrowDivide(signed, isRem, pc, done)
		return
	}
	c.fullDivide(w, signed, isRem, special)
	a.bind(done)
}

// fullDivide emits the division of AX by CX in its operand width (32
// bits for the W ops), the divisor known not to be zero, leaving the
// result in AX. A signed one first tests for a divisor of -1 (x86
// traps on MinInt / -1, where RISC-V wraps), and minus1 emits the jump
// on ZF to answer, which gives that case's result in AX: divide's
// out-of-line special, or narrowDivide's jump within its cold path.
func (c *compiler) fullDivide(w, signed, isRem bool, minus1 func(answer func())) {
	a := c.a
	cmp, neg, cvt, idiv, div := xCMPQ, xNEGQ, xCQO, xIDIVQ, xDIVQ
	if w {
		cmp, neg, cvt, idiv, div = xCMPL, xNEGL, xCDQ, xIDIVL, xDIVL
	}
	if signed {
		a.op(cmp, reg(rCX), imm(-1))
		minus1(func() { // divisor -1: quotient -dividend (wrapping), remainder 0
			if isRem {
				a.op(xXORL, reg(rAX), reg(rAX))
			} else {
				a.op(neg, none, reg(rAX))
			}
		})
		a.op(cvt, none, none)
		a.op(idiv, reg(rCX), none)
	} else {
		a.op(xXORL, reg(rDX), reg(rDX))
		a.op(div, reg(rCX), none)
	}
	if isRem {
		a.op(xMOVQ, reg(rDX), reg(rAX))
	}
}
