// Instruction lowering: one recorded RV64IM instruction -> x86-64 instructions.

package fragment

import (
	"github.com/twitchyliquid64/golang-asm/obj"
	"github.com/twitchyliquid64/golang-asm/obj/x86"

	"rvdyn/interp"
)

// opnd returns an operand that reads guest register r: its host register,
// its State slot, or $0 for x0.
func (c *compiler) opnd(r uint8) obj.Addr {
	switch {
	case r == 0:
		return imm(0)
	case c.ra.host[r] != 0:
		return reg(c.ra.host[r])
	}
	return mem(rSt, regOff(r))
}

// inReg returns the host register holding guest register r, or 0.
func (c *compiler) inReg(r uint8) int16 {
	if r == 0 {
		return 0
	}
	return c.ra.host[r]
}

// load puts guest register r into host register h.
func (c *compiler) load(r uint8, h int16) {
	switch {
	case r == 0:
		c.a.op(x86.AXORL, reg(h), reg(h))
	case c.ra.host[r] == h:
	default:
		c.a.op(x86.AMOVQ, c.opnd(r), reg(h))
	}
}

// store writes host register h to guest register r (a no-op for x0).
func (c *compiler) store(h int16, r uint8) {
	if r == 0 || c.ra.host[r] == h {
		return
	}
	c.a.op(x86.AMOVQ, reg(h), c.opnd(r))
}

// storeConst writes the constant v to guest register r.
func (c *compiler) storeConst(v uint64, r uint8) {
	switch {
	case r == 0:
	case int64(v) == int64(int32(v)):
		c.a.op(x86.AMOVQ, imm(int64(v)), c.opnd(r))
	default:
		c.a.op(x86.AMOVQ, imm(int64(v)), reg(rAX))
		c.store(rAX, r)
	}
}

// work returns the register to compute rd's new value in: rd's own host
// register when that does not clobber a source still needed (rs2), else AX.
func (c *compiler) work(in interp.Inst, readsRs2 bool) int16 {
	if h := c.inReg(in.Rd); h != 0 && !(readsRs2 && in.Rs2 == in.Rd) {
		return h
	}
	return rAX
}

var aluRR = map[interp.Op]obj.As{
	interp.OpADD: x86.AADDQ, interp.OpSUB: x86.ASUBQ, interp.OpXOR: x86.AXORQ,
	interp.OpOR: x86.AORQ, interp.OpAND: x86.AANDQ, interp.OpMUL: x86.AIMULQ,
	interp.OpADDI: x86.AADDQ, interp.OpXORI: x86.AXORQ, interp.OpORI: x86.AORQ, interp.OpANDI: x86.AANDQ,
	interp.OpADDW: x86.AADDL, interp.OpSUBW: x86.ASUBL, interp.OpMULW: x86.AIMULL,
	interp.OpADDIW: x86.AADDL,
}

var commutative = map[interp.Op]bool{
	interp.OpADD: true, interp.OpXOR: true, interp.OpOR: true, interp.OpAND: true,
	interp.OpMUL: true, interp.OpADDW: true, interp.OpMULW: true,
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
		e := c.exit(ExitIndirect, 0, pc, i+1)
		e.rd, e.link = in.Rd, pc+4
		e.misaligned = c.exit(ExitInterp, pc, pc, i)
		a.jump(x86.AJNE, e.stub)
		c.storeConst(pc+4, in.Rd)
	case in.IsBranch():
		c.branch(i, s)
	case op.Class() == interp.ClassLoad:
		base := c.address(in, c.env.ReadLo, pc, i)
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
		w := c.inReg(in.Rd)
		if w == 0 {
			w = rDX
		}
		a.op(as, memIdx(rMem, base, 0), reg(w))
		c.store(w, in.Rd)
	case op.Class() == interp.ClassStore:
		base := c.address(in, c.env.WriteLo, pc, i)
		as := [4]obj.As{x86.AMOVB, x86.AMOVW, x86.AMOVL, x86.AMOVQ}[op-interp.OpSB]
		v := c.opnd(in.Rs2)
		if v.Type == obj.TYPE_MEM {
			c.load(in.Rs2, rDX)
			v = reg(rDX)
		}
		a.op(as, v, memIdx(rMem, base, 0))
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

// branch lowers a conditional branch: the recorded direction falls
// through, the other one leaves the fragment.
func (c *compiler) branch(i int, s interp.TraceStep) {
	a := c.a
	in := s.Inst
	pc := s.PC
	target := pc + uint64(in.Imm)
	if target == pc+4 {
		return // both directions continue at pc+4
	}
	cond := branchCond[in.Op]
	x, y := c.opnd(in.Rs1), c.opnd(in.Rs2)
	switch {
	case x.Type == obj.TYPE_REG:
	case y.Type == obj.TYPE_REG && x.Type == obj.TYPE_CONST:
		// 0 < y etc.: compare y with 0 and mirror the condition
		x, y = y, x
		cond = mirrored[in.Op]
	default:
		c.load(in.Rs1, rAX)
		x = reg(rAX)
	}
	if y.Type == obj.TYPE_CONST {
		a.op(x86.ATESTQ, x, x)
	} else {
		a.op(x86.ACMPQ, x, y)
	}
	switch {
	case s.Next == target: // recorded taken: leave when not taken
		c.exitIf(cond[1], ExitBranch, pc+4, pc, i+1)
	case target&3 != 0: // the interpreter reports the misaligned target
		c.exitIf(cond[0], ExitInterp, pc, pc, i)
	default:
		c.exitIf(cond[0], ExitBranch, target, pc, i+1)
	}
}

// mirrored gives the conditions of a branch with its operands swapped
// (taken, not taken).
var mirrored = map[interp.Op][2]obj.As{
	interp.OpBEQ:  {x86.AJEQ, x86.AJNE},
	interp.OpBNE:  {x86.AJNE, x86.AJEQ},
	interp.OpBLT:  {x86.AJGT, x86.AJLE},
	interp.OpBGE:  {x86.AJLE, x86.AJGT},
	interp.OpBLTU: {x86.AJHI, x86.AJLS},
	interp.OpBGEU: {x86.AJLS, x86.AJHI},
}

// address computes the effective address of a load or store, exits to the
// interpreter if it lies outside [lo, MemSize), and returns the host
// register holding it.
func (c *compiler) address(in interp.Inst, lo, pc uint64, i int) int16 {
	a := c.a
	base := c.inReg(in.Rs1)
	switch {
	case base != 0 && in.Imm == 0:
	case base != 0:
		a.op(x86.ALEAQ, mem(base, in.Imm), reg(rAX))
		base = rAX
	default:
		c.load(in.Rs1, rAX)
		if in.Imm != 0 {
			a.op(x86.AADDQ, imm(in.Imm), reg(rAX))
		}
		base = rAX
	}
	a.op(x86.ALEAQ, mem(base, -int64(lo)), reg(rCX))
	a.op(x86.ACMPQ, reg(rCX), imm(int64(c.env.MemSize-lo)))
	c.exitIf(x86.AJCC, ExitInterp, pc, pc, i)
	return base
}

// arith lowers an ALU or M-extension instruction with rd != 0.
func (c *compiler) arith(in interp.Inst) {
	a := c.a
	op := in.Op
	immForm := op >= interp.OpADDI && op <= interp.OpSRAIW
	switch {
	case aluRR[op] != 0:
		b := imm(in.Imm)
		if !immForm {
			b = c.opnd(in.Rs2)
			if b.Type == obj.TYPE_CONST && (op == interp.OpMUL || op == interp.OpMULW) {
				c.load(in.Rs2, rCX) // imul takes no immediate here
				b = reg(rCX)
			}
		}
		if !immForm && in.Rd == in.Rs2 && in.Rd != in.Rs1 && in.Rs1 != 0 && commutative[op] && c.inReg(in.Rd) != 0 {
			// rd = rs1 op rd: operate on rd's register in place
			w := c.inReg(in.Rd)
			a.op(aluRR[op], c.opnd(in.Rs1), reg(w))
			if isW(op) {
				a.op(x86.AMOVLQSX, reg(w), reg(w))
			}
			break
		}
		w := c.work(in, !immForm)
		if op == interp.OpADDI && w != rAX && c.inReg(in.Rs1) != 0 && c.inReg(in.Rs1) != w {
			a.op(x86.ALEAQ, mem(c.inReg(in.Rs1), in.Imm), reg(w)) // rd = rs1 + imm in one step
		} else {
			c.load(in.Rs1, w)
			a.op(aluRR[op], b, reg(w))
		}
		if isW(op) {
			a.op(x86.AMOVLQSX, reg(w), reg(w))
		}
		c.store(w, in.Rd)
	case shifts[op] != 0:
		if !immForm {
			c.load(in.Rs2, rCX)
		}
		w := c.work(in, false) // rs2 is safe in CX
		c.load(in.Rs1, w)
		if immForm {
			a.op(shifts[op], imm(in.Imm), reg(w))
		} else {
			a.op(shifts[op], reg(rCX), reg(w))
		}
		if isW(op) {
			a.op(x86.AMOVLQSX, reg(w), reg(w))
		}
		c.store(w, in.Rd)
	case op == interp.OpSLT || op == interp.OpSLTI || op == interp.OpSLTU || op == interp.OpSLTIU:
		set := x86.ASETLT
		if op == interp.OpSLTU || op == interp.OpSLTIU {
			set = x86.ASETCS
		}
		b := imm(in.Imm)
		if !immForm {
			b = c.opnd(in.Rs2)
		}
		c.load(in.Rs1, rAX)
		a.op(x86.ACMPQ, reg(rAX), b)
		a.op(set, none, reg(rAX))
		a.op(x86.AMOVBQZX, reg(rAX), reg(rAX))
		c.store(rAX, in.Rd)
	default:
		c.load(in.Rs2, rCX)
		c.load(in.Rs1, rAX)
		switch op {
		case interp.OpMULH:
			a.op(x86.AIMULQ, reg(rCX), none)
			a.op(x86.AMOVQ, reg(rDX), reg(rAX))
		case interp.OpMULHU:
			a.op(x86.AMULQ, reg(rCX), none)
			a.op(x86.AMOVQ, reg(rDX), reg(rAX))
		case interp.OpMULHSU:
			// mulhu(a, b) - (a < 0 ? b : 0)
			a.op(x86.AMULQ, reg(rCX), none)
			c.load(in.Rs1, rAX)
			a.op(x86.ASARQ, imm(63), reg(rAX))
			a.op(x86.AANDQ, reg(rCX), reg(rAX))
			a.op(x86.ASUBQ, reg(rAX), reg(rDX))
			a.op(x86.AMOVQ, reg(rDX), reg(rAX))
		default:
			c.divide(in)
			if isW(op) {
				a.op(x86.AMOVLQSX, reg(rAX), reg(rAX))
			}
		}
		c.store(rAX, in.Rd)
	}
}

// divide lowers div, divu, rem, remu and their W forms with AX = rs1 and
// CX = rs2, leaving the result in AX. x86 traps where RISC-V defines a
// result, so the zero divisor and the signed overflow (MinInt / -1) are
// tested first.
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
