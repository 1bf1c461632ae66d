// Instruction lowering: one recorded RV64IM instruction -> x86-64 instructions.

package fragment

import (
	"github.com/twitchyliquid64/golang-asm/obj"
	"github.com/twitchyliquid64/golang-asm/obj/x86"

	"rvdyn/interp"
)

// load puts guest register r into host register h.
func (c *compiler) load(r uint8, h int16) {
	if r == 0 {
		c.a.op(x86.AXORL, reg(h), reg(h))
		return
	}
	c.a.op(x86.AMOVQ, mem(rSt, regOff(r)), reg(h))
}

// src returns an operand that reads guest register r.
func src(r uint8) obj.Addr {
	if r == 0 {
		return imm(0)
	}
	return mem(rSt, regOff(r))
}

// store writes host register h to guest register r (a no-op for x0).
func (c *compiler) store(h int16, r uint8) {
	if r != 0 {
		c.a.op(x86.AMOVQ, reg(h), mem(rSt, regOff(r)))
	}
}

// storeConst writes the constant v to guest register r.
func (c *compiler) storeConst(v uint64, r uint8) {
	if r == 0 {
		return
	}
	if int64(v) == int64(int32(v)) {
		c.a.op(x86.AMOVQ, imm(int64(v)), mem(rSt, regOff(r)))
		return
	}
	c.a.op(x86.AMOVQ, imm(int64(v)), reg(rAX))
	c.store(rAX, r)
}

var aluRR = map[interp.Op]obj.As{
	interp.OpADD: x86.AADDQ, interp.OpSUB: x86.ASUBQ, interp.OpXOR: x86.AXORQ,
	interp.OpOR: x86.AORQ, interp.OpAND: x86.AANDQ, interp.OpMUL: x86.AIMULQ,
	interp.OpADDI: x86.AADDQ, interp.OpXORI: x86.AXORQ, interp.OpORI: x86.AORQ, interp.OpANDI: x86.AANDQ,
	interp.OpADDW: x86.AADDL, interp.OpSUBW: x86.ASUBL, interp.OpMULW: x86.AIMULL,
	interp.OpADDIW: x86.AADDL,
}

var shifts = map[interp.Op]obj.As{
	interp.OpSLL: x86.ASHLQ, interp.OpSRL: x86.ASHRQ, interp.OpSRA: x86.ASARQ,
	interp.OpSLLI: x86.ASHLQ, interp.OpSRLI: x86.ASHRQ, interp.OpSRAI: x86.ASARQ,
	interp.OpSLLW: x86.ASHLL, interp.OpSRLW: x86.ASHRL, interp.OpSRAW: x86.ASARL,
	interp.OpSLLIW: x86.ASHLL, interp.OpSRLIW: x86.ASHRL, interp.OpSRAIW: x86.ASARL,
}

// isW reports whether op produces a 32-bit result sign-extended to 64.
func isW(op interp.Op) bool {
	switch op {
	case interp.OpADDW, interp.OpSUBW, interp.OpMULW, interp.OpADDIW,
		interp.OpSLLW, interp.OpSRLW, interp.OpSRAW, interp.OpSLLIW, interp.OpSRLIW, interp.OpSRAIW,
		interp.OpDIVW, interp.OpDIVUW, interp.OpREMW, interp.OpREMUW:
		return true
	}
	return false
}

// Branch conditions: the jump taken when the RISC-V branch is taken, and
// its negation (Go assembler names: CS = below, CC = above or equal).
var branchCond = map[interp.Op][2]obj.As{
	interp.OpBEQ:  {x86.AJEQ, x86.AJNE},
	interp.OpBNE:  {x86.AJNE, x86.AJEQ},
	interp.OpBLT:  {x86.AJLT, x86.AJGE},
	interp.OpBGE:  {x86.AJGE, x86.AJLT},
	interp.OpBLTU: {x86.AJCS, x86.AJCC},
	interp.OpBGEU: {x86.AJCC, x86.AJCS},
}

// step lowers trace step i; it reports false if the fragment ends here
// (an instruction native code does not execute).
func (c *compiler) step(i int, s interp.TraceStep) bool {
	a := c.a
	in := s.Inst
	pc := s.PC
	switch op := in.Op; {
	case op == interp.OpLUI:
		c.storeConst(uint64(in.Imm), in.Rd)
	case op == interp.OpAUIPC:
		c.storeConst(pc+uint64(in.Imm), in.Rd)
	case op == interp.OpJAL:
		c.storeConst(pc+4, in.Rd)
	case op == interp.OpJALR:
		c.load(in.Rs1, rAX)
		if in.Imm != 0 {
			a.op(x86.AADDQ, imm(in.Imm), reg(rAX))
		}
		a.op(x86.AANDQ, imm(-2), reg(rAX))
		a.op(x86.ACMPQ, reg(rAX), imm(int64(s.Next)))
		c.exitIf(x86.AJNE, ExitInterp, pc, pc, i)
		c.storeConst(pc+4, in.Rd)
	case in.IsBranch():
		target := pc + uint64(in.Imm)
		if target == pc+4 {
			break // both directions continue at pc+4
		}
		c.load(in.Rs1, rAX)
		a.op(x86.ACMPQ, reg(rAX), src(in.Rs2))
		cond := branchCond[op]
		switch {
		case s.Next == target && pc+4 != s.Next: // recorded taken: leave when not taken
			c.exitIf(cond[1], ExitBranch, pc+4, pc, i+1)
		case target&3 != 0: // the interpreter reports the misaligned target
			c.exitIf(cond[0], ExitInterp, pc, pc, i)
		default:
			c.exitIf(cond[0], ExitBranch, target, pc, i+1)
		}
	case op.Class() == interp.ClassLoad:
		c.address(in, c.env.ReadLo, pc, i)
		var as obj.As
		switch op {
		case interp.OpLB:
			as = x86.AMOVBQSX
		case interp.OpLH:
			as = x86.AMOVWQSX
		case interp.OpLW:
			as = x86.AMOVLQSX
		case interp.OpLD:
			as = x86.AMOVQ
		case interp.OpLBU:
			as = x86.AMOVBQZX
		case interp.OpLHU:
			as = x86.AMOVWQZX
		case interp.OpLWU:
			as = x86.AMOVL
		}
		a.op(as, memIdx(rMem, rAX, 0), reg(rDX))
		c.store(rDX, in.Rd)
	case op.Class() == interp.ClassStore:
		c.address(in, c.env.WriteLo, pc, i)
		c.load(in.Rs2, rDX)
		as := [4]obj.As{x86.AMOVB, x86.AMOVW, x86.AMOVL, x86.AMOVQ}[op-interp.OpSB]
		a.op(as, reg(rDX), memIdx(rMem, rAX, 0))
	case op == interp.OpFENCE:
	case op >= interp.OpADDI && op <= interp.OpREMUW:
		if in.Rd != 0 {
			c.arith(in)
		}
	default:
		// ecall, ebreak, fence.i, illegal: the recorder ends traces
		// before these; if one appears, leave to the interpreter.
		e := c.exit(ExitInterp, pc, pc, i)
		a.jump(obj.AJMP, e.stub)
		return false
	}
	return true
}

// address computes the effective address of a load or store into AX and
// exits to the interpreter if it lies outside [lo, MemSize).
func (c *compiler) address(in interp.Inst, lo, pc uint64, i int) {
	a := c.a
	c.load(in.Rs1, rAX)
	if in.Imm != 0 {
		a.op(x86.AADDQ, imm(in.Imm), reg(rAX))
	}
	a.op(x86.ALEAQ, mem(rAX, -int64(lo)), reg(rCX))
	a.op(x86.ACMPQ, reg(rCX), imm(int64(c.env.MemSize-lo)))
	c.exitIf(x86.AJCC, ExitInterp, pc, pc, i)
}

// arith lowers an ALU or M-extension instruction with rd != 0.
func (c *compiler) arith(in interp.Inst) {
	a := c.a
	op := in.Op
	immForm := op >= interp.OpADDI && op <= interp.OpSRAIW
	var b obj.Addr
	switch {
	case immForm:
		b = imm(in.Imm)
	case in.Rs2 == 0 || op.Class() == interp.ClassMul:
		// one-operand multiplies take no immediate: use a register
		c.load(in.Rs2, rCX)
		b = reg(rCX)
	default:
		b = src(in.Rs2)
	}
	c.load(in.Rs1, rAX)
	switch {
	case aluRR[op] != 0:
		a.op(aluRR[op], b, reg(rAX))
	case shifts[op] != 0:
		if immForm {
			a.op(shifts[op], b, reg(rAX))
		} else {
			c.load(in.Rs2, rCX)
			a.op(shifts[op], reg(rCX), reg(rAX))
		}
	case op == interp.OpSLT || op == interp.OpSLTI || op == interp.OpSLTU || op == interp.OpSLTIU:
		set := x86.ASETLT
		if op == interp.OpSLTU || op == interp.OpSLTIU {
			set = x86.ASETCS
		}
		a.op(x86.ACMPQ, reg(rAX), b)
		a.op(set, none, reg(rAX))
		a.op(x86.AMOVBQZX, reg(rAX), reg(rAX))
	case op == interp.OpMULH:
		a.op(x86.AIMULQ, b, none)
		a.op(x86.AMOVQ, reg(rDX), reg(rAX))
	case op == interp.OpMULHU:
		a.op(x86.AMULQ, b, none)
		a.op(x86.AMOVQ, reg(rDX), reg(rAX))
	case op == interp.OpMULHSU:
		// mulhu(a, b) - (a < 0 ? b : 0)
		a.op(x86.AMULQ, b, none)
		c.load(in.Rs1, rAX)
		a.op(x86.ASARQ, imm(63), reg(rAX))
		a.op(x86.AANDQ, b, reg(rAX))
		a.op(x86.ASUBQ, reg(rAX), reg(rDX))
		a.op(x86.AMOVQ, reg(rDX), reg(rAX))
	default:
		c.divide(in)
	}
	if isW(op) {
		a.op(x86.AMOVLQSX, reg(rAX), reg(rAX))
	}
	c.store(rAX, in.Rd)
}

// divide lowers div, divu, rem, remu and their W forms with AX = rs1,
// leaving the result in AX. x86 traps where RISC-V defines a result, so
// the zero divisor and the signed overflow (MinInt / -1) are tested first.
func (c *compiler) divide(in interp.Inst) {
	a := c.a
	op := in.Op
	w := isW(op)
	signed := op == interp.OpDIV || op == interp.OpREM || op == interp.OpDIVW || op == interp.OpREMW
	isRem := op == interp.OpREM || op == interp.OpREMU || op == interp.OpREMW || op == interp.OpREMUW
	test, cmp, neg, cvt, idiv, div := x86.ATESTQ, x86.ACMPQ, x86.ANEGQ, x86.ACQO, x86.AIDIVQ, x86.ADIVQ
	if w {
		test, cmp, neg, cvt, idiv, div = x86.ATESTL, x86.ACMPL, x86.ANEGL, x86.ACDQ, x86.AIDIVL, x86.ADIVL
	}
	c.load(in.Rs2, rCX)
	zero, done := &label{}, &label{}
	a.op(test, reg(rCX), reg(rCX))
	a.jump(x86.AJEQ, zero)
	var minus1 *label
	if signed {
		minus1 = &label{}
		a.op(cmp, reg(rCX), imm(-1))
		a.jump(x86.AJEQ, minus1)
		a.op(cvt, none, none)
		a.op(idiv, reg(rCX), none)
	} else {
		a.op(x86.AXORL, reg(rDX), reg(rDX))
		a.op(div, reg(rCX), none)
	}
	if isRem {
		a.op(x86.AMOVQ, reg(rDX), reg(rAX))
	}
	a.jump(obj.AJMP, done)
	// Divisor zero: quotient all ones, remainder the dividend (AX).
	a.bind(zero)
	if isRem {
		a.op(x86.AMOVQ, reg(rAX), reg(rAX))
	} else {
		a.op(x86.AMOVQ, imm(-1), reg(rAX))
	}
	if signed {
		a.jump(obj.AJMP, done)
		// Divisor -1: quotient -dividend (wrapping), remainder 0.
		a.bind(minus1)
		if isRem {
			a.op(x86.AXORL, reg(rAX), reg(rAX))
		} else {
			a.op(neg, none, reg(rAX))
		}
	}
	a.bind(done)
}
