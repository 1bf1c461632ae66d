// Atomic lowering: lr, sc and the AMOs -> alignment and bounds checks, then a plain read-modify-write (guests are single-threaded; see ir.IsAtomic).

package amd64

import (
	"rvdyn/fragment/ir"
	"rvdyn/interp"
)

// lowerAtomic lowers an atomic IR instruction:
//
//	TESTL $size-1, addr ; JNE exit         ; misaligned: the interpreter faults
//	<access's bounds check of addr>        ; load and store intervals (lr: load)
//	lr:  DX = [addr] ; Resv = addr+1
//	sc:  DX = 1 ; if Resv == addr+1 { [addr] = src ; DX = 0 } ; Resv = 0
//	amo: DX = [addr] ; CX = op(DX, src) ; [addr] = CX
//	rd = DX                                ; .w values sign-extended
func (c *compiler) lowerAtomic(i int, in ir.Inst) {
	a := c.a
	size := ir.AtomicWidth(in.Op)
	op := in.Op
	if size == 8 {
		op -= interp.OpLRD - interp.OpLRW // the .w names from here on
	}
	addr := c.hostOf(in.A)
	if addr == 0 {
		c.load(in.A, rAX)
		addr = rAX
	}
	a.op(xTESTL, imm(size-1), reg(addr))
	a.jcc(condNE, c.stubFor(in.Exit, i).stub)
	need := interp.AccW // an AMO and sc write (and so may read)
	if op == interp.OpLRW {
		need = interp.AccR
	}
	m := c.access(i, in, need) // (a value in no host register is loaded into AX again)
	load, store := xMOVLQSX, xMOVL
	if size == 8 {
		load, store = xMOVQ, xMOVQ
	}
	resv := mem(rSt, StateResv)
	switch op {
	case interp.OpLRW:
		a.op(load, m, reg(rDX))
		a.op(xLEAQ, mem(addr, 1), reg(rCX))
		a.op(xMOVQ, reg(rCX), resv)
	case interp.OpSCW:
		done := &label{}
		a.op(xLEAQ, mem(addr, 1), reg(rCX))
		a.op(xCMPQ, reg(rCX), resv)
		a.op(xMOVQ, imm(0), resv) // MOV leaves the flags alone
		a.op(xMOVL, imm(1), reg(rDX))
		a.jcc(condNE, done)
		a.op(store, c.atomicSrc(in.B), m)
		a.op(xXORL, reg(rDX), reg(rDX))
		a.bind(done)
	default:
		a.op(load, m, reg(rDX))
		c.load(in.B, rCX)
		if size == 4 {
			a.op(xMOVLQSX, reg(rCX), reg(rCX)) // compared as 32-bit values, sign-extended
		}
		keep := &label{}
		switch op {
		case interp.OpAMOSWAPW:
		case interp.OpAMOADDW:
			a.op(xADDQ, reg(rDX), reg(rCX))
		case interp.OpAMOXORW:
			a.op(xXORQ, reg(rDX), reg(rCX))
		case interp.OpAMOANDW:
			a.op(xANDQ, reg(rDX), reg(rCX))
		case interp.OpAMOORW:
			a.op(xORQ, reg(rDX), reg(rCX))
		default: // min and max: CX = DX unless CX already wins
			cmp := xCMPQ
			if size == 4 && (op == interp.OpAMOMINUW || op == interp.OpAMOMAXUW) {
				cmp = xCMPL // unsigned as 32-bit values
			}
			a.op(cmp, reg(rDX), reg(rCX)) // DX against CX
			cc := map[interp.Op]cond{interp.OpAMOMINW: condGE, interp.OpAMOMAXW: condLE, interp.OpAMOMINUW: condAE, interp.OpAMOMAXUW: condBE}[op]
			a.jcc(cc, keep)
			a.op(xMOVQ, reg(rDX), reg(rCX))
		}
		a.bind(keep)
		a.op(store, reg(rCX), m)
	}
	c.store(rDX, in.Dst)
}

// atomicSrc returns an operand for sc's source value: a register (or a
// small constant).
func (c *compiler) atomicSrc(v ir.Val) operand {
	if v.IsConst && ir.FitsInt32(int64(v.Const)) {
		return imm(int64(int32(v.Const)))
	}
	if h := c.hostOf(v); h != 0 {
		return reg(h)
	}
	c.load(v, rCX)
	return reg(rCX)
}
