// Lazy sign extension: which guest registers hold a 32-bit result whose upper half is not yet extended -> the MOVLQSX each consumer needs, and none where it reads only the low half.

package amd64

import (
	"rvdyn/fragment/exit"
	"rvdyn/fragment/ir"
	"rvdyn/interp"
)

// sextState follows, instruction by instruction along the trace, the
// registers of 32-bit values. RV64's W ops (addw, sllw, ...) sign-extend
// their 32-bit result to 64 bits, which costs a MOVLQSX after the x86
// 32-bit op; gcc's 32-bit code (SHA-256, CRC, hashes) is mostly W ops
// feeding W ops, bitwise ops and narrow stores, none of which reads the
// upper half. So a W result that lands in a host register is left
// "stale" (its low 32 bits right, its upper 32 bits garbage) and
// extended in place only before an instruction that reads all 64 bits,
// and in exit stubs before it is written back to State.
//
// Invariants: a stale register is allocated (State slots are always
// exact); at the fragment entry nothing is stale, and at the head of a
// self-loop only registers the body writes before it reads them in full
// (redefinedAtHead; the back edge extends the others) and before any
// exit, or that are always sign extensions (headSext); an exit stub
// extends the stale registers it writes back.
type sextState struct {
	on bool // Options.NoLazySext is off
	// stale: bit r is set when r's host register has the right low 32
	// bits and a stale upper half.
	stale uint32
	// known: bit r is set when r's guest value is the sign extension of
	// its low 32 bits (a W result, lw, a narrow load, a sign extension,
	// slt, or a bitwise op on such values). Only known values may be
	// read stale by bitwise ops and compares: for them the low halves
	// decide the result.
	known uint32
	// rawStale: the instruction being lowered reads a stale operand
	// without extending it, so its result (if any) must be extended or
	// left stale, and a compare must be 32 bits wide.
	rawStale bool
	// lazy is set by the lowering when it left the result in Dst's host
	// register stale.
	lazy bool
}

// knownVal reports whether v is known to be sign-extended from 32 bits.
func (c *compiler) knownVal(v ir.Val) bool {
	if v.IsConst {
		return ir.FitsInt32(int64(v.Const))
	}
	return v.Reg == 0 || c.sx.known&(1<<v.Reg) != 0
}

// staleVal reports whether v is a register whose upper half is stale.
func (c *compiler) staleVal(v ir.Val) bool {
	return !v.IsConst && v.Reg != 0 && c.sx.stale&(1<<v.Reg) != 0
}

// lowReads reports, for operands A and B of in, whether in reads only
// their low 32 bits (or fewer), so that they may be stale.
func (c *compiler) lowReads(in ir.Inst) (a, b bool) {
	switch op := in.Op; {
	case op == interp.OpFCVTDW, op == interp.OpFCVTSW, op == interp.OpFCVTDWU, op == interp.OpFCVTSWU, op == interp.OpFMVWX:
		return true, false // conversions and the move of a word: 32-bit sources
	case op == interp.OpAND || op == interp.OpOR || op == interp.OpXOR, ir.IsGuard(op):
		both := c.knownVal(in.A) && c.knownVal(in.B)
		return both, both
	case op == ir.OpMov:
		return c.host(in.Dst) != 0, false // copied as is, staleness and all
	}
	return lowReadsKnown(in)
}

// extend emits the sign extension of stale register r in place.
func (c *compiler) extend(r uint8) {
	h := c.host(r)
	c.a.op(xMOVLQSX, reg(h), reg(h))
	c.sx.stale &^= 1 << r
	c.extensions++
}

// prepare extends the stale operands in reads in full.
func (c *compiler) prepare(v ir.Val, low bool) {
	if !low && c.staleVal(v) {
		c.extend(v.Reg)
	}
}

// knownResult reports whether the value in writes to Dst is known to be
// sign-extended from 32 bits (computed before in updates the state).
func (c *compiler) knownResult(in ir.Inst) bool {
	switch op := in.Op; {
	case isW(op):
		return true
	case op == ir.OpSext32, op == ir.OpSext16, op == ir.OpSext8, op == ir.OpZext16, op == ir.OpZext8:
		return true
	case op == interp.OpLW, op == interp.OpLH, op == interp.OpLB, op == interp.OpLHU, op == interp.OpLBU:
		return true
	case op == interp.OpSLT, op == interp.OpSLTU:
		return true
	case op == interp.OpAND && (nonNeg32(in.A) || nonNeg32(in.B)):
		return true // in [0, c]
	case op == interp.OpAND || op == interp.OpOR || op == interp.OpXOR:
		return c.knownVal(in.A) && c.knownVal(in.B)
	case op == ir.OpMov:
		return c.knownVal(in.A)
	}
	return false
}

// nonNeg32 reports whether v is a constant in [0, 2^31).
func nonNeg32(v ir.Val) bool { return v.IsConst && v.Const < 1<<31 }

// lowerSext lowers IR instruction i with lazy sign extension: it extends
// the stale operands in reads in full, lowers it, and records whether its
// result is stale and known to be sign-extended.
func (c *compiler) lowerSext(i int, in ir.Inst) {
	if !c.sx.on {
		c.lowerInst(i, in)
		return
	}
	lowA, lowB := c.lowReads(in)
	c.prepare(in.A, lowA)
	c.prepare(in.B, lowB)
	c.sx.rawStale = c.staleVal(in.A) || c.staleVal(in.B)
	c.sx.lazy = false
	known := c.knownResult(in)
	c.lowerInst(i, in)
	if in.Dst == 0 {
		return
	}
	bit := uint32(1) << in.Dst
	c.sx.stale &^= bit
	c.sx.known &^= bit
	if known {
		c.sx.known |= bit
	} else if c.headSext&bit != 0 {
		c.sxBroken |= bit // (see sextCheck)
	}
	if c.sx.lazy || (in.Op == ir.OpMov && c.sx.rawStale) {
		c.sx.stale |= bit
	}
}

// redefinedAtHead returns the guest registers that a self-loop's body
// writes before it reads them in full (W ops read only the low half)
// and, unless throughExits, before it can leave through any exit: such
// a register may reach the head with a stale upper half, because nothing
// on the path from the head to its next value can see that half. The
// back edge then need not extend it, except on its way out when the
// budget is spent.
//
// Through exits, a register is left stale at the head only as one of
// headSext: the exit stubs before its next value extend it, which is
// right only if its value is always a sign extension (stale or not).
func redefinedAtHead(f *ir.Func, throughExits bool) uint32 {
	var dead, seen uint32
	for _, in := range f.Insts {
		if !throughExits && (in.Exit >= 0 || in.Op == ir.OpExit) {
			break // every register not yet written is written back there
		}
		for _, v := range [...]ir.Val{in.A, in.B} {
			if !v.IsConst && v.Reg != 0 && !isW(in.Op) {
				seen |= 1 << v.Reg // read in full first
			}
		}
		if d := in.Dst; d != 0 && seen&(1<<d) == 0 {
			dead |= 1 << d
		}
		if in.Dst != 0 {
			seen |= 1 << in.Dst
		}
	}
	return dead
}

// lowFirstReads returns the guest registers whose reads in a self-loop's
// body, up to the first write to them, all read at most their low 32
// bits once the register is known to be sign-extended: W ops, shift
// amounts, sign and zero extensions, narrow stores, and bitwise ops and
// compares (which lowReads lets read a known register stale when the
// other operand is known too; where it is not, the lowering extends the
// register there, as the back edge would have), and copies to a host
// register (the copy is stale and known in turn). Left stale at the head
// as one of headSext (tested on entry, every write to it in the body
// known), such a register needs no extension on the back edge: gcc's
// 32-bit loops (CRC's crc = table[..] ^ (crc >> 8), SHA-256's rounds)
// carry their values into the next pass through xor, and, srliw and
// the copies that rotate SHA-256's eight working variables.
func (c *compiler) lowFirstReads() uint32 {
	var full, written uint32
	for _, in := range c.f.Insts {
		lowA, lowB := lowReadsKnown(in)
		if in.Op == ir.OpMov {
			lowA = c.host(in.Dst) != 0
		}
		for k, v := range [...]ir.Val{in.A, in.B} {
			low := lowA
			if k == 1 {
				low = lowB
			}
			if !v.IsConst && v.Reg != 0 && !low && written&(1<<v.Reg) == 0 {
				full |= 1 << v.Reg
			}
		}
		if in.Dst != 0 {
			written |= 1 << in.Dst
		}
	}
	return written &^ full
}

// lowReadsKnown is lowReads for operands known to be sign-extended: which
// of in's operands it reads only in their low 32 bits (lowReads adds
// the conversions, and for bitwise ops and compares asks whether both
// operands are known).
func lowReadsKnown(in ir.Inst) (a, b bool) {
	switch op := in.Op; {
	case isW(op):
		return true, true
	case op == interp.OpSLL || op == interp.OpSRL || op == interp.OpSRA:
		return false, true // the shift amount is the low 6 bits
	case ir.IsExt(op):
		return true, false // MOVLQSX, MOVL and the narrower ones
	case ir.IsStore(op):
		return false, ir.Width(op) <= 4
	case op == interp.OpAND || op == interp.OpOR || op == interp.OpXOR, ir.IsGuard(op):
		return true, true
	}
	return false, false
}

// headSextWanted returns, after a first lowering of a self-loop, the
// registers the back edge had to extend only because an exit comes
// before their next value: stale at the end of the body (in the end
// stub), written before read in full, in host registers. A second
// lowering may leave them stale at the head (headSext), paying instead
// one test per register on entry and an extension in the exit stubs
// that come before their next value, off the loop's path.
func (c *compiler) headSextWanted(endStale uint32) uint32 {
	if !c.loops || !c.sx.on {
		return 0
	}
	want := endStale & (redefinedAtHead(c.f, true) | c.lowFirstReads()) &^ c.redefined
	for r := uint8(1); r < 32; r++ {
		if c.host(r) == 0 {
			want &^= 1 << r
		}
	}
	return want
}

// sextCheck emits, on entry, the test that each register of headSext
// holds the sign extension of its low 32 bits, else an exit to the
// interpreter at the head before anything is done (the interpreter runs
// an iteration, which writes them): with it, and every write to them in
// the body a value known to be sign-extended (sxBroken otherwise), a
// MOVLQSX of one in an exit stub gives its exact value whether the
// iteration came from the entry or from the back edge.
//
//	MOVLQSX r, CX ; CMPQ CX, r ; JNE exit
func (c *compiler) sextCheck() {
	if c.headSext == 0 {
		return
	}
	s := c.headEntryTest()
	for r := uint8(1); r < 32; r++ {
		if c.headSext&(1<<r) != 0 {
			h := c.host(r)
			c.a.op(xMOVLQSX, reg(h), reg(rCX))
			c.a.op(xCMPQ, reg(rCX), reg(h))
			c.a.jcc(condNE, s.stub)
		}
	}
}

// headEntryTest returns a new exit of an entry test: to the interpreter
// at the head, before anything is done (exit.Record.EntryTest).
func (c *compiler) headEntryTest() *exitStub {
	s := &exitStub{Record: exit.Record{Kind: exit.Interp, Target: c.f.Head, From: c.f.Head, EntryTest: true}, stub: &label{}}
	c.exits = append(c.exits, s)
	return s
}

// finish32 completes an instruction whose result in w has the right low
// 32 bits (a W op, or a bitwise op that read a stale operand): it is
// left stale when it goes to Dst's host register and lazy sign
// extension is on, and sign-extended here otherwise.
func (c *compiler) finish32(in ir.Inst, w register) {
	if c.sx.on && c.host(in.Dst) != 0 {
		c.sx.lazy = true
		return
	}
	c.a.op(xMOVLQSX, reg(w), reg(w))
}

// extendStale emits the sign extension of the registers of mask that are
// stale in place (an exit stub, before it writes them back or jumps to
// the loop head).
func (c *compiler) extendStale(mask uint32) {
	for r := uint8(1); r < 32; r++ {
		if mask&(1<<r) != 0 {
			h := c.host(r)
			c.a.op(xMOVLQSX, reg(h), reg(h))
		}
	}
}
