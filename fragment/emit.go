// Instruction emission: one IR instruction -> x86-64 instructions.

package fragment

import (
	"github.com/twitchyliquid64/golang-asm/obj"
	"github.com/twitchyliquid64/golang-asm/obj/x86"

	"rvdyn/interp"
)

// host returns the host register holding guest register r, or 0.
func (c *compiler) host(r uint8) int16 {
	if r == 0 {
		return 0
	}
	return c.ra.host[r]
}

// hostOf returns the host register holding v, or 0 (constants, and
// registers that live in State).
func (c *compiler) hostOf(v Val) int16 {
	if v.IsConst {
		return 0
	}
	return c.host(v.Reg)
}

// opnd returns an operand that reads v: an immediate (a constant that
// fits a sign-extended 32-bit immediate), a host register or a State slot.
// A wider constant is first loaded into scratch.
func (c *compiler) opnd(v Val, scratch int16) obj.Addr {
	switch {
	case v.IsConst && fitsInt32(int64(v.Const)):
		return imm(int64(v.Const))
	case v.IsConst:
		c.a.op(x86.AMOVQ, imm(int64(v.Const)), reg(scratch))
		return reg(scratch)
	case c.host(v.Reg) != 0:
		return reg(c.host(v.Reg))
	}
	return mem(rSt, regOff(v.Reg))
}

// load puts v into host register h.
func (c *compiler) load(v Val, h int16) {
	switch {
	case v.IsConst && v.Const == 0:
		c.a.op(x86.AXORL, reg(h), reg(h))
	case v.IsConst:
		c.a.op(x86.AMOVQ, imm(int64(v.Const)), reg(h))
	case c.host(v.Reg) == h:
	default:
		c.a.op(x86.AMOVQ, c.opnd(v, h), reg(h))
	}
}

// store writes host register h to guest register r (a no-op for x0).
func (c *compiler) store(h int16, r uint8) {
	if r == 0 || c.host(r) == h {
		return
	}
	c.a.op(x86.AMOVQ, reg(h), c.opnd(R(r), 0))
}

// storeConst writes the constant v to guest register r.
func (c *compiler) storeConst(v uint64, r uint8) {
	switch {
	case r == 0:
	case c.host(r) != 0:
		c.load(C(v), c.host(r))
	case fitsInt32(int64(v)):
		c.a.op(x86.AMOVQ, imm(int64(v)), c.opnd(R(r), 0))
	default:
		c.a.op(x86.AMOVQ, imm(int64(v)), reg(rAX))
		c.store(rAX, r)
	}
}

// work returns the register to compute in.Dst's new value in: its own
// host register when that does not clobber b, still to be read; else AX.
func (c *compiler) work(in Inst, b Val) int16 {
	if h := c.host(in.Dst); h != 0 && !b.isReg(in.Dst) {
		return h
	}
	return rAX
}

var aluRR = map[interp.Op]obj.As{
	interp.OpADD: x86.AADDQ, interp.OpSUB: x86.ASUBQ, interp.OpXOR: x86.AXORQ,
	interp.OpOR: x86.AORQ, interp.OpAND: x86.AANDQ, interp.OpMUL: x86.AIMULQ,
	interp.OpADDW: x86.AADDL, interp.OpSUBW: x86.ASUBL, interp.OpMULW: x86.AIMULL,
}

var commutative = map[interp.Op]bool{
	interp.OpADD: true, interp.OpXOR: true, interp.OpOR: true, interp.OpAND: true,
	interp.OpMUL: true, interp.OpADDW: true, interp.OpMULW: true,
}

var shifts = map[interp.Op]obj.As{
	interp.OpSLL: x86.ASHLQ, interp.OpSRL: x86.ASHRQ, interp.OpSRA: x86.ASARQ,
	interp.OpSLLW: x86.ASHLL, interp.OpSRLW: x86.ASHRL, interp.OpSRAW: x86.ASARL,
}

var extends = map[interp.Op]obj.As{
	opZext8: x86.AMOVBQZX, opZext16: x86.AMOVWQZX, opZext32: x86.AMOVL,
	opSext8: x86.AMOVBQSX, opSext16: x86.AMOVWQSX, opSext32: x86.AMOVLQSX,
}

var loads = map[interp.Op]obj.As{
	interp.OpLB: x86.AMOVBQSX, interp.OpLH: x86.AMOVWQSX, interp.OpLW: x86.AMOVLQSX, interp.OpLD: x86.AMOVQ,
	interp.OpLBU: x86.AMOVBQZX, interp.OpLHU: x86.AMOVWQZX, interp.OpLWU: x86.AMOVL,
}

// isW reports whether op produces a 32-bit result sign-extended to 64.
func isW(op interp.Op) bool {
	switch op {
	case interp.OpADDW, interp.OpSUBW, interp.OpMULW,
		interp.OpSLLW, interp.OpSRLW, interp.OpSRAW,
		interp.OpDIVW, interp.OpDIVUW, interp.OpREMW, interp.OpREMUW:
		return true
	}
	return false
}

// Branch conditions: the jump taken when the RISC-V branch is taken (Go
// assembler names: CS = below, CC = above or equal), and the same with
// the operands swapped.
var (
	branchCond = map[interp.Op]obj.As{
		interp.OpBEQ: x86.AJEQ, interp.OpBNE: x86.AJNE, interp.OpBLT: x86.AJLT,
		interp.OpBGE: x86.AJGE, interp.OpBLTU: x86.AJCS, interp.OpBGEU: x86.AJCC,
	}
	mirrored = map[interp.Op]obj.As{
		interp.OpBEQ: x86.AJEQ, interp.OpBNE: x86.AJNE, interp.OpBLT: x86.AJGT,
		interp.OpBGE: x86.AJLE, interp.OpBLTU: x86.AJHI, interp.OpBGEU: x86.AJLS,
	}
)

// inst lowers IR instruction i (anything but the end exit).
func (c *compiler) inst(i int, in Inst) {
	a := c.a
	switch op := in.Op; {
	case op == opMov:
		switch {
		case in.A.IsConst:
			c.storeConst(in.A.Const, in.Dst)
		case in.A.Reg == in.Dst:
		case c.host(in.Dst) != 0:
			c.load(in.A, c.host(in.Dst))
		default:
			c.load(in.A, rAX)
			c.store(rAX, in.Dst)
		}
	case isExt(op):
		if in.A.IsConst {
			c.storeConst(extend(op, in.A.Const), in.Dst)
			break
		}
		w := c.work(in, Val{})
		a.op(extends[op], c.opnd(in.A, 0), reg(w))
		c.store(w, in.Dst)
	case isALU(op):
		c.arith(in)
	case isLoad(op):
		m := c.access(i, in, c.env.ReadLo)
		if in.Dst == 0 {
			break // only the check matters
		}
		w := c.host(in.Dst)
		if w == 0 {
			w = rDX
		}
		a.op(loads[op], m, reg(w))
		c.store(w, in.Dst)
	case isStore(op):
		m := c.access(i, in, c.env.WriteLo)
		v := in.B
		var src obj.Addr
		switch n := width(op); {
		case v.IsConst && n < 8: // the immediate of a narrow store is as wide as the store
			src = imm(int64(extend(map[int64]interp.Op{1: opSext8, 2: opSext16, 4: opSext32}[n], v.Const)))
		case v.IsConst && fitsInt32(int64(v.Const)):
			src = imm(int64(v.Const))
		case c.hostOf(v) != 0:
			src = reg(c.hostOf(v))
		default:
			c.load(v, rDX)
			src = reg(rDX)
		}
		as := map[int64]obj.As{1: x86.AMOVB, 2: x86.AMOVW, 4: x86.AMOVL, 8: x86.AMOVQ}[width(op)]
		a.op(as, src, m)
	case isGuard(op):
		c.guard(i, in)
	case op == interp.OpJALR:
		c.load(in.A, rAX)
		if in.Off != 0 {
			a.op(x86.AADDQ, imm(in.Off), reg(rAX))
		}
		a.op(x86.AANDQ, imm(-2), reg(rAX))
		a.op(x86.ACMPQ, reg(rAX), imm(int64(in.B.Const)))
		e := c.stubFor(in.Exit, i)
		a.jump(x86.AJNE, e.stub)
	default:
		panic("fragment: cannot emit " + in.String())
	}
}

// guard lowers "exit if op(A, B)".
func (c *compiler) guard(i int, in Inst) {
	a := c.a
	e := c.stubFor(in.Exit, i)
	if exits, known := guardOutcome(in); known {
		if exits {
			a.jump(obj.AJMP, e.stub)
		}
		return
	}
	cond := branchCond[in.Op]
	x, y := in.A, in.B
	var xo obj.Addr
	switch {
	case c.hostOf(x) != 0:
		xo = reg(c.hostOf(x))
	case c.hostOf(y) != 0 && x.IsConst && fitsInt32(int64(x.Const)):
		// 0 < y etc.: compare y with x and mirror the condition
		x, y = y, x
		xo = reg(c.hostOf(x))
		cond = mirrored[in.Op]
	default:
		c.load(x, rAX)
		xo = reg(rAX)
	}
	if y.IsConst && y.Const == 0 {
		a.op(x86.ATESTQ, xo, xo)
	} else {
		a.op(x86.ACMPQ, xo, c.opnd(y, rCX))
	}
	a.jump(cond, e.stub)
}

// access computes the address of a load or store, checks it, and returns
// the memory operand. Guest memory is two intervals, [lo, GuardLo) (text,
// data, heap) and [GuardHi, MemSize) (the stack, above its guard gap):
//
//	LEAQ off-lo1(base), CX ; CMPQ CX, $size1 ; JAE slow   ; the recorded interval
//	back: <the access>
//	...
//	slow: LEAQ off-lo2(base), CX ; CMPQ CX, $size2 ; JAE exit ; JMP back
//
// so an access costs one compare when it hits the interval it hit while
// recording, and two more jumps when it hits the other one (a pointer to
// a local where a heap pointer was recorded). An address in neither
// leaves to the interpreter at this very instruction, which reports the
// fault. A constant address proven in bounds (no exit) needs no check.
func (c *compiler) access(i int, in Inst, lo uint64) obj.Addr {
	a := c.a
	if in.Exit < 0 {
		return mem(rMem, int64(in.A.Const+uint64(in.Off)))
	}
	env := c.env
	lows := [2]uint64{lo, env.GuardHi}
	sizes := [2]uint64{env.GuardLo - lo, env.MemSize - env.GuardHi}
	if in.Stack {
		lows[0], lows[1], sizes[0], sizes[1] = lows[1], lows[0], sizes[1], sizes[0]
	}
	fits := func(off int64) bool {
		return fitsInt32(off-int64(lows[0])) && (sizes[1] == 0 || fitsInt32(off-int64(lows[1])))
	}
	base := c.hostOf(in.A)
	off := in.Off
	switch {
	case base != 0 && fits(off):
		// The offset goes into the checks' LEAs and the access's displacement.
	case base != 0:
		a.op(x86.ALEAQ, mem(base, off), reg(rAX))
		base, off = rAX, 0
	case in.A.IsConst:
		c.load(C(in.A.Const+uint64(off)), rAX)
		base, off = rAX, 0
	default:
		c.load(in.A, rAX)
		base = rAX
		if !fits(off) {
			a.op(x86.AADDQ, imm(off), reg(rAX))
			off = 0
		}
	}
	e := c.stubFor(in.Exit, i)
	a.op(x86.ALEAQ, mem(base, off-int64(lows[0])), reg(rCX))
	a.op(x86.ACMPQ, reg(rCX), imm(int64(sizes[0])))
	if sizes[1] == 0 {
		a.jump(x86.AJCC, e.stub)
		return memIdx(rMem, base, off)
	}
	slow, back := &label{}, &label{}
	a.jump(x86.AJCC, slow)
	a.bind(back)
	c.cold = append(c.cold, func() {
		a.bind(slow)
		a.op(x86.ALEAQ, mem(base, off-int64(lows[1])), reg(rCX))
		a.op(x86.ACMPQ, reg(rCX), imm(int64(sizes[1])))
		a.jump(x86.AJCC, e.stub)
		a.jump(obj.AJMP, back)
	})
	return memIdx(rMem, base, off)
}
