// Floating-point lowering: an F or D IR instruction -> scalar SSE/FMA3 code with RISC-V's NaNs, sign injection, minimum/maximum and classes (conversions in floatconv.go, CSRs in floatcsr.go).

package amd64

import (
	"golang.org/x/sys/cpu"
	"rvdyn/fragment/ir"
	"rvdyn/interp"
)

// RISC-V semantics at the cost of a check, not a call:
//
//   - Rounding: native code is entered with the host's MXCSR as Go
//     keeps it (round to nearest even, exceptions masked). A Func whose
//     instructions round by the dynamic mode installs frm as MXCSR's
//     rounding control first (ir.OpFrm: a test of frm, and out of line
//     when it is not rne); the trampoline restores round-to-nearest on
//     the way back to Go. Static rounding modes are compiled only into
//     the conversions to integers (truncation, or ROUNDSx with the
//     mode), which do not depend on MXCSR.
//   - Exception flags: the host's sticky MXCSR flags accrue while native
//     code runs; the trampoline clears them on entry and saves them on
//     return, and the code cache ORs them into fflags (codecache.Enter,
//     FFlagsOfMXCSR), so the interpreter and CSR reads see them. x86
//     detects tininess after rounding, as RISC-V does, and raises the
//     same invalid, divide-by-zero, overflow, underflow and inexact
//     flags for the operations compiled here; its denormal-operand flag
//     has no RISC-V counterpart and is dropped.
//   - NaNs: x86 returns an operand's NaN (or its default NaN, which is
//     negative); RISC-V returns the canonical NaN. A UCOMISx of a result
//     with itself sets the parity flag only for a NaN (of two results:
//     when either is one, and a test takes a second register along where
//     one waits, lazynan.go's canonicalizePair), and the fix-up loading
//     the canonical NaN is out of line. It runs only where the
//     bits can be seen: before a store, a move to an x register, a sign
//     injection, fclass, a read at the other precision, and in exit
//     stubs (lazynan.go; after every arithmetic operation with
//     Options.NoLazyNaN).
//   - Singles live NaN-boxed in the 64-bit f registers. A single operand
//     is loaded as all 64 bits; if the upper half is not all ones it
//     reads as the canonical NaN (out of line). The scalar single
//     operations change only the low 32 bits of their destination, so a
//     result computed into a boxed operand's register is boxed.
//   - Conversions to integers truncate or round with CVTTSx2SI/CVTSx2SI,
//     which return the "integer indefinite" (the most negative integer)
//     for NaN and out-of-range inputs; RISC-V saturates (NaN and positive
//     overflow to the largest integer), so that one result takes an out
//     of line fix-up.
//   - fmin/fmax: MINSD/MAXSD disagree with RISC-V for NaNs and signed
//     zeros; a UCOMISx first sends those (rare) cases out of line.
//
// The f registers a fragment uses most live in XMM registers
// (fregalloc.go), the others in State (CPU.F); X0..X3 are scratch.

// Canonical NaNs and the NaN box.
const (
	canonNaN64 = 0x7ff8000000000000
	canonNaN32 = 0xffffffff_7fc00000 // boxed
	nanBox     = 0xffffffff_00000000
)

// fslot is f register r in State; fhigh is its upper half.
func fslot(r uint8) operand { return mem(rSt, StateF+8*int64(r)) }
func fhigh(r uint8) operand { return mem(rSt, StateF+8*int64(r)+4) }

// fsrc returns an operand for f register r (all 64 bits): its XMM
// register, or its State slot. A MOVQ to or from it moves the bits
// either way.
func (c *compiler) fsrc(r uint8) operand {
	if x := c.fr.host[r]; x != 0 {
		return reg(x)
	}
	return fslot(r)
}

// fmov puts f register r into XMM register x (its low 64 bits).
func (c *compiler) fmov(r uint8, x register) {
	switch h := c.fr.host[r]; h {
	case x:
	case 0:
		c.a.op(xMOVSD, fslot(r), reg(x))
	default:
		c.a.op(xMOVAPS, reg(h), reg(x))
	}
}

// fput writes the low 64 bits of XMM register x to f register r.
func (c *compiler) fput(x register, r uint8) {
	switch h := c.fr.host[r]; h {
	case x:
	case 0:
		c.a.op(xMOVSD, reg(x), fslot(r))
	default:
		c.a.op(xMOVAPS, reg(x), reg(h))
	}
}

// fwork returns the XMM register to compute f register d's new value
// in: d's own, when it has one that none of the operands still to be
// read (busy) names; else X0.
func (c *compiler) fwork(d uint8, busy ...uint8) register {
	h := c.fr.host[d]
	for _, r := range busy {
		if r == d {
			h = 0
		}
	}
	if h == 0 {
		return rX0
	}
	return h
}

// outOfLine emits a jump on cc to code emitted after the exit stubs,
// which runs body and jumps back to the instruction after the jump.
func (c *compiler) outOfLine(cc cond, pc uint64, body func(back *label)) {
	a := c.a
	l, back := &label{}, &label{}
	a.jcc(cc, l)
	a.bind(back)
	c.cold = append(c.cold, func() {
		c.mark(pc)
		a.bind(l)
		body(back)
		a.jmp(back)
	})
}

// loadConstX puts the 64-bit constant v into XMM register x (through AX).
func (c *compiler) loadConstX(v uint64, x register) { c.loadConstXWith(v, x, rAX) }

// loadConstXWith puts the 64-bit constant v into XMM register x through
// general register tmp.
func (c *compiler) loadConstXWith(v uint64, x, tmp register) {
	c.a.op(xMOVQ, imm(int64(v)), reg(tmp))
	c.a.op(xMOVQ, reg(tmp), reg(x))
}

// loadSingle puts f register r, a NaN-boxed single, into XMM register x
// (all 64 bits): the boxed canonical NaN if r is not properly boxed.
func (c *compiler) loadSingle(r uint8, x register, pc uint64) {
	c.fmov(r, x)
	if c.boxed&(1<<r) != 0 {
		return // a single this fragment wrote, boxed since
	}
	if c.fr.host[r] != 0 {
		c.a.op(xMOVQ, reg(x), reg(rAX))
		c.a.op(xSHRQ, imm(32), reg(rAX))
		c.a.op(xCMPL, reg(rAX), imm(-1))
	} else {
		c.a.op(xCMPL, fhigh(r), imm(-1))
	}
	c.outOfLine(condNE, pc, func(*label) { c.loadConstX(canonNaN32, x) })
}

// boxCheck emits an OpBoxCheck (ir.BoxCheck): a jump to fail unless
// every f register of mask holds a NaN-boxed single. The body then starts
// with them known boxed.
func (c *compiler) boxCheck(mask uint32, fail *label) {
	for r := uint8(0); r < 32; r++ {
		if mask&(1<<r) == 0 {
			continue
		}
		if h := c.fr.host[r]; h != 0 {
			c.a.op(xMOVQ, reg(h), reg(rAX))
			c.a.op(xSHRQ, imm(32), reg(rAX))
			c.a.op(xCMPL, reg(rAX), imm(-1))
		} else {
			c.a.op(xCMPL, fhigh(r), imm(-1))
		}
		c.a.jcc(condNE, fail)
	}
	if c.boxKnown {
		c.headBoxed = mask
	}
}

// boxAfter records which f registers in wrote: a single result is
// NaN-boxed (every F instruction that writes an f register boxes its
// result, as the ISA has it), anything else may not be. At the body's
// head (where the entry and the back edge meet) only what an OpBoxCheck
// proved on entry is known (headBoxed), and the straight line after it
// adds what it writes.
func (c *compiler) boxAfter(in ir.Inst) {
	if !c.boxKnown {
		return
	}
	floatUses(&in, func(uint8) {}, func(d uint8) {
		if ir.SingleResult(in.Op) {
			c.boxed |= 1 << d
		} else {
			c.boxed &^= 1 << d
		}
	})
}

// loadFloat puts f register r into x: a double as it is, a single
// unboxed as loadSingle does.
func (c *compiler) loadFloat(r uint8, x register, single bool, pc uint64) {
	if single {
		c.loadSingle(r, x, pc)
		return
	}
	c.fmov(r, x)
}

// canonicalize replaces a NaN in x by the canonical NaN.
func (c *compiler) canonicalize(x register, single bool, pc uint64) {
	c.canonicalizeWith(x, single, rAX, pc)
}

// canonicalizeWith is canonicalize with tmp as the fix-up's scratch
// register.
func (c *compiler) canonicalizeWith(x register, single bool, tmp register, pc uint64) {
	ucomis := xUCOMISD
	if single {
		ucomis = xUCOMISS
	}
	c.a.op(ucomis, reg(x), reg(x))
	c.outOfLine(condPS, pc, func(*label) { c.loadConstXWith(canonNaN(single), x, tmp) })
}

// canonNaN returns the canonical NaN of a double, or of a single boxed.
func canonNaN(single bool) uint64 {
	if single {
		return canonNaN32
	}
	return canonNaN64
}

// singleOp reports whether a floating-point op's f operands are singles.
func singleOp(op interp.Op) bool {
	switch op {
	case interp.OpFLW, interp.OpFSW, interp.OpFCVTDS:
		return true
	case interp.OpFLD, interp.OpFSD, interp.OpFCVTSD:
		return false
	}
	return op < interp.OpFMADDD
}

var (
	arith = map[interp.Op]mnemonic{
		interp.OpFADDD: xADDSD, interp.OpFSUBD: xSUBSD, interp.OpFMULD: xMULSD, interp.OpFDIVD: xDIVSD,
		interp.OpFADDS: xADDSS, interp.OpFSUBS: xSUBSS, interp.OpFMULS: xMULSS, interp.OpFDIVS: xDIVSS,
	}
	// avxArith is arith in AVX's three-operand forms.
	avxArith = map[interp.Op]mnemonic{
		interp.OpFADDD: xVADDSD, interp.OpFSUBD: xVSUBSD, interp.OpFMULD: xVMULSD, interp.OpFDIVD: xVDIVSD,
		interp.OpFADDS: xVADDSS, interp.OpFSUBS: xVSUBSS, interp.OpFMULS: xVMULSS, interp.OpFDIVS: xVDIVSS,
	}
	// hostAVX reports whether the host has AVX, whose three-operand
	// scalar arithmetic writes a register apart from both operands.
	hostAVX = cpu.X86.HasAVX
	// fused maps RISC-V's fused multiply-adds to FMA3: fnmsub is
	// -(a*b)+c, x86's fnmadd, and fnmadd is -(a*b)-c, x86's fnmsub.
	fused = map[interp.Op]mnemonic{
		interp.OpFMADDD: xVFMADD231SD, interp.OpFMSUBD: xVFMSUB231SD, interp.OpFNMSUBD: xVFNMADD231SD, interp.OpFNMADDD: xVFNMSUB231SD,
		interp.OpFMADDS: xVFMADD231SS, interp.OpFMSUBS: xVFMSUB231SS, interp.OpFNMSUBS: xVFNMADD231SS, interp.OpFNMADDS: xVFNMSUB231SS,
	}
	// fusedInPlace is fused in FMA3's 213 forms, which leave the result
	// in a factor's register: d = b*d + c.
	fusedInPlace = map[interp.Op]mnemonic{
		interp.OpFMADDD: xVFMADD213SD, interp.OpFMSUBD: xVFMSUB213SD, interp.OpFNMSUBD: xVFNMADD213SD, interp.OpFNMADDD: xVFNMSUB213SD,
		interp.OpFMADDS: xVFMADD213SS, interp.OpFMSUBS: xVFMSUB213SS, interp.OpFNMSUBS: xVFNMADD213SS, interp.OpFNMADDS: xVFNMSUB213SS,
	}
)

// lowerFloat lowers floating-point IR instruction i.
func (c *compiler) lowerFloat(i int, in ir.Inst) {
	a := c.a
	op, pc := in.Op, in.PC
	single := singleOp(op)
	ucomis, comis := xUCOMISD, xCOMISD
	if single {
		ucomis, comis = xUCOMISS, xCOMISS
	}
	switch op {
	case interp.OpFLD, interp.OpFLW:
		m := c.access(i, in, interp.AccR)
		switch h := c.fr.host[in.F.D]; {
		case op == interp.OpFLD && h != 0:
			a.op(xMOVSD, m, reg(h))
		case op == interp.OpFLD:
			a.op(xMOVQ, m, reg(rDX))
			a.op(xMOVQ, reg(rDX), fslot(in.F.D))
		case h != 0:
			// All ones, then the single into the low 32 bits: boxed
			// without a 64-bit constant or a general register.
			c.boxOnes(h)
			a.op(xMOVSS, m, reg(rX0))
			a.op(xMOVSS, reg(rX0), reg(h))
		default:
			a.op(xMOVL, m, reg(rDX))
			a.op(xMOVQ, imm(-1<<32), reg(rCX)) // the NaN box
			a.op(xORQ, reg(rCX), reg(rDX))
			a.op(xMOVQ, reg(rDX), c.fsrc(in.F.D))
		}
	case interp.OpFSD, interp.OpFSW:
		m := c.access(i, in, interp.AccW)
		switch h := c.fr.host[in.F.B]; {
		case h != 0 && op == interp.OpFSD:
			a.op(xMOVSD, reg(h), m)
		case h != 0:
			a.op(xMOVSS, reg(h), m)
		case op == interp.OpFSD:
			a.op(xMOVQ, fslot(in.F.B), reg(rDX))
			a.op(xMOVQ, reg(rDX), m)
		default:
			a.op(xMOVL, fslot(in.F.B), reg(rDX))
			a.op(xMOVL, reg(rDX), m)
		}
	case interp.OpFADDD, interp.OpFSUBD, interp.OpFMULD, interp.OpFDIVD:
		if c.avx { // d = a op b in one instruction, whichever registers alias
			w, xa := c.fwork(in.F.D), c.readable(in.F.A, rX1, false, pc)
			a.op3(avxArith[op], c.fsrc(in.F.B), reg(xa), reg(w))
			c.finishFloat(in, w, false)
			break
		}
		w := c.fwork(in.F.D, in.F.B)
		c.fmov(in.F.A, w)
		a.op(arith[op], c.fsrc(in.F.B), reg(w))
		c.finishFloat(in, w, false)
	case interp.OpFADDS, interp.OpFSUBS, interp.OpFMULS, interp.OpFDIVS:
		src := c.fsrc(in.F.B) // read where it is when its box is known
		if c.boxed&(1<<in.F.B) == 0 {
			c.loadSingle(in.F.B, rX2, pc)
			src = reg(rX2)
		}
		if c.avx {
			// d = a op b in one instruction, as for doubles: the
			// result's bits 63:32 are a's, which readable has made a
			// NaN box (a's own, or the canonical NaN's for a single
			// that is not boxed).
			w := c.fwork(in.F.D)
			a.op3(avxArith[op], src, reg(c.readable(in.F.A, rX1, true, pc)), reg(w))
			c.finishFloat(in, w, true)
			break
		}
		w := c.fwork(in.F.D, in.F.B)
		c.loadSingle(in.F.A, w, pc)
		a.op(arith[op], src, reg(w))
		c.finishFloat(in, w, true)
	case interp.OpFSQRTD:
		w := c.fwork(in.F.D)
		a.op(xSQRTSD, c.fsrc(in.F.A), reg(w))
		c.finishFloat(in, w, false)
	case interp.OpFSQRTS:
		w := c.fwork(in.F.D)
		c.loadSingle(in.F.A, w, pc)
		a.op(xSQRTSS, reg(w), reg(w))
		c.finishFloat(in, w, true)
	case interp.OpFMADDD, interp.OpFMSUBD, interp.OpFNMSUBD, interp.OpFNMADDD,
		interp.OpFMADDS, interp.OpFMSUBS, interp.OpFNMSUBS, interp.OpFNMADDS:
		if c.lowerFusedInPlace(in, single) {
			break
		}
		w := c.fwork(in.F.D, in.F.A, in.F.B)
		// The factors are read where they are when they can be (fwork
		// keeps w off both), else from X1 and X2.
		xa, xb := c.readable(in.F.A, rX1, single, pc), c.readable(in.F.B, rX2, single, pc)
		c.loadFloat(in.F.C, w, single, pc)
		a.op3(fused[op], reg(xb), reg(xa), reg(w))
		if c.fn.on && (in.F.A == in.F.B || c.numbers[prec(single)]&(1<<in.F.C) != 0) {
			// A square is never 0 * inf, and an addend that is a
			// number is not the quiet NaN x86 raises nothing for: the
			// result is any other arithmetic result, canonical where
			// its bits are seen.
			c.finishFloat(in, w, single)
			break
		}
		// RISC-V's fused multiply-add is invalid for 0 * inf even when
		// the addend is a quiet NaN; x86's then raises nothing. The
		// test of the result takes a dirty register along.
		fix := func() { c.invalidProduct(single, xa, xb) }
		if p, ok := c.nanPartner(single, 1<<in.F.D); ok {
			c.canonicalizePair(w, c.fr.host[p], single, fix, rAX, pc)
		} else {
			a.op(ucomis, reg(w), reg(w))
			c.outOfLine(condPS, pc, func(*label) {
				fix()
				c.loadConstX(canonNaN(single), w)
			})
		}
		c.fput(w, in.F.D)
	case interp.OpFSGNJD, interp.OpFSGNJND, interp.OpFSGNJXD, interp.OpFSGNJS, interp.OpFSGNJNS, interp.OpFSGNJXS:
		c.lowerSignInject(in, single)
	case interp.OpFMIND, interp.OpFMAXD, interp.OpFMINS, interp.OpFMAXS:
		c.lowerMinMax(in, single)
	case interp.OpFEQD, interp.OpFEQS:
		// feq is quiet: UCOMISx raises invalid for signalling NaNs only.
		xa, xb := c.readable(in.F.A, rX0, single, pc), c.readable(in.F.B, rX1, single, pc)
		restore := in.F.Quiet && c.snapLive > 0
		var nan *label
		if !restore {
			nan = c.quietTest(in, single, xa, xb)
		}
		a.op(xXORL, reg(rDX), reg(rDX))
		a.op(xXORL, reg(rCX), reg(rCX))
		a.op(ucomis, reg(xb), reg(xa))
		if restore { // on the compare's parity: the fix-up keeps the flags
			c.restoreOnNaN(c.snapLive-1, pc)
		}
		a.op(xSETEQ, none, reg(rDX))
		a.op(xSETPC, none, reg(rCX))
		a.op(xANDL, reg(rCX), reg(rDX))
		c.quietJoin(nan, pc)
		c.store(rDX, in.Dst)
	case interp.OpFLTD, interp.OpFLED, interp.OpFLTS, interp.OpFLES:
		// flt and fle signal: COMISx raises invalid for any NaN. a < b
		// is b above a, a <= b is b above or equal (neither when
		// unordered: carry and zero set).
		xb, xa := c.readable(in.F.B, rX0, single, pc), c.readable(in.F.A, rX1, single, pc)
		restore := in.F.Quiet && c.snapLive > 0
		var nan *label
		if !restore {
			nan = c.quietTest(in, single, xb, xa)
		}
		a.op(xXORL, reg(rDX), reg(rDX))
		a.op(comis, reg(xa), reg(xb))
		if restore { // on the compare's parity: the fix-up keeps the flags
			c.restoreOnNaN(c.snapLive-1, pc)
		}
		set := xSETHI
		if op == interp.OpFLED || op == interp.OpFLES {
			set = xSETCC
		}
		a.op(set, none, reg(rDX)) // 0 when unordered (carry set)
		c.quietJoin(nan, pc)
		c.store(rDX, in.Dst)
	case interp.OpFCVTWD, interp.OpFCVTLD, interp.OpFCVTWS, interp.OpFCVTLS:
		c.lowerToInt(in, single)
	case interp.OpFCLASSD, interp.OpFCLASSS:
		c.lowerClass(in, single)
	case interp.OpFCVTWUD, interp.OpFCVTLUD, interp.OpFCVTWUS, interp.OpFCVTLUS:
		c.lowerToUnsigned(in, single)
	case interp.OpFCVTDW, interp.OpFCVTDWU, interp.OpFCVTDL, interp.OpFCVTSW, interp.OpFCVTSWU, interp.OpFCVTSL:
		c.exactGuard(i, in)
		c.lowerFromInt(in)
	case interp.OpFCVTDLU, interp.OpFCVTSLU:
		c.exactGuard(i, in)
		c.lowerFromUnsigned(in)
	case interp.OpFCVTSD:
		c.boxOnes(rX0)
		a.op(xCVTSD2SS, c.fsrc(in.F.A), reg(rX0))
		c.finishFloat(in, rX0, true)
	case interp.OpFCVTDS:
		c.loadSingle(in.F.A, rX1, pc)
		a.op(xCVTSS2SD, reg(rX1), reg(rX0))
		c.finishFloat(in, rX0, false)
	case interp.OpFMVXD:
		if in.Dst != 0 {
			w := c.host(in.Dst)
			if w == 0 {
				w = rDX
			}
			a.op(xMOVQ, c.fsrc(in.F.A), reg(w))
			c.store(w, in.Dst)
		}
	case interp.OpFMVXW:
		if in.Dst != 0 {
			a.op(xMOVQ, c.fsrc(in.F.A), reg(rDX))
			a.op(xMOVLQSX, reg(rDX), reg(rDX))
			c.store(rDX, in.Dst)
		}
	case interp.OpFMVDX:
		switch {
		case in.A.IsConst && ir.FitsInt32(int64(in.A.Const)) && c.fr.host[in.F.D] == 0:
			a.op(xMOVQ, imm(int64(in.A.Const)), fslot(in.F.D))
		case c.hostOf(in.A) != 0:
			a.op(xMOVQ, reg(c.hostOf(in.A)), c.fsrc(in.F.D))
		default:
			c.load(in.A, rDX)
			a.op(xMOVQ, reg(rDX), c.fsrc(in.F.D))
		}
	case interp.OpFMVWX:
		if in.A.IsConst {
			c.load(ir.C(nanBox|in.A.Const&0xffffffff), rDX)
		} else {
			a.op(xMOVL, c.opnd(in.A, rDX), reg(rDX))
			a.op(xMOVQ, imm(-1<<32), reg(rCX)) // the NaN box
			a.op(xORQ, reg(rCX), reg(rDX))
		}
		a.op(xMOVQ, reg(rDX), c.fsrc(in.F.D))
	default:
		panic("amd64: cannot lower " + in.String())
	}
}

// finishFloat completes an arithmetic result in XMM register w: the
// canonical NaN for a NaN, then the write of the destination f register.
// A destination with an XMM register is left as x86 computed it, dirty,
// when NaNs are canonicalized lazily (lazynan.go).
func (c *compiler) finishFloat(in ir.Inst, w register, single bool) {
	if c.fn.on && c.fr.host[in.F.D] != 0 {
		c.fn.lazy, c.fn.lazySgl = true, single
	} else {
		c.canonicalize(w, single, in.PC)
	}
	c.fput(w, in.F.D)
}

// invalidProduct raises invalid if the factors xa * xb are 0 * inf or
// inf * 0 (out of line, after a fused multiply-add gave a NaN; X1 and X2
// are scratch either way):
//
//	AX = xa << 1 ; CX = xb << 1 ; DX = inf << 1     ; the sign dropped
//	if AX == 0 && CX == DX || AX == DX && CX == 0 { X1 = 0 ; X1 *= inf }
func (c *compiler) invalidProduct(single bool, xa, xb register) {
	a := c.a
	done, raise := &label{}, &label{}
	shl, test, cmp := xSHLQ, xTESTQ, xCMPQ
	inf := int64(-1 << 53) // 0x7ff0000000000000 << 1
	if single {
		shl, test, cmp, inf = xSHLL, xTESTL, xCMPL, 0x7f800000<<1
	}
	a.op(xMOVQ, reg(xa), reg(rAX))
	a.op(xMOVQ, reg(xb), reg(rCX))
	a.op(shl, imm(1), reg(rAX))
	a.op(shl, imm(1), reg(rCX))
	a.op(xMOVQ, imm(inf), reg(rDX))
	zero := &label{}
	a.op(test, reg(rAX), reg(rAX))
	a.jcc(condEQ, zero)
	a.op(test, reg(rCX), reg(rCX))
	a.jcc(condNE, done)
	a.op(cmp, reg(rAX), reg(rDX)) // b is zero: is a infinite?
	a.jcc(condEQ, raise)
	a.jmp(done)
	a.bind(zero)
	a.op(cmp, reg(rCX), reg(rDX)) // a is zero: is b infinite?
	a.jcc(condNE, done)
	a.bind(raise)
	a.op(xXORPS, reg(rX1), reg(rX1))
	a.op(xMOVQ, imm(0x7ff0000000000000), reg(rDX)) // a double infinity
	a.op(xMOVQ, reg(rDX), reg(rX2))
	a.op(xMULSD, reg(rX2), reg(rX1))
	a.bind(done)
}

// lowerSignInject lowers fsgnj, fsgnjn and fsgnjx: a's bits with the
// sign bit replaced by b's, by b's complement, or xored with b's:
//
//	AX = a ; CX = a^b (fsgnjx: b) ; CX &= sign (fsgnjn: CX ^= sign) ; AX ^= CX
func (c *compiler) lowerSignInject(in ir.Inst, single bool) {
	a := c.a
	if in.F.A == in.F.B {
		// The pseudo-instructions fmv, fneg and fabs: one operand.
		switch in.Op {
		case interp.OpFSGNJD: // fmv.d: the bits as they are
			w := c.fwork(in.F.D)
			c.fmov(in.F.A, w)
			c.fput(w, in.F.D)
			return
		case interp.OpFSGNJS: // fmv.s: the single it reads, boxed
			w := c.fwork(in.F.D)
			c.loadSingle(in.F.A, w, in.PC)
			c.fput(w, in.F.D)
			return
		case interp.OpFSGNJND, interp.OpFSGNJXD: // fneg.d: the sign flipped; fabs.d: cleared
			a.op(xMOVQ, c.fsrc(in.F.A), reg(rAX))
			if in.Op == interp.OpFSGNJND {
				c.load(ir.C(1<<63), rCX)
				a.op(xXORQ, reg(rCX), reg(rAX))
			} else {
				a.op(xSHLQ, imm(1), reg(rAX))
				a.op(xSHRQ, imm(1), reg(rAX))
			}
			a.op(xMOVQ, reg(rAX), c.fsrc(in.F.D))
			return
		case interp.OpFSGNJNS: // fneg.s of a single whose box is known: bit 31 flipped
			if c.boxed&(1<<in.F.A) == 0 {
				break
			}
			a.op(xMOVQ, c.fsrc(in.F.A), reg(rAX))
			a.op(xMOVL, imm(1<<31), reg(rCX)) // zero-extended: the box stays
			a.op(xXORQ, reg(rCX), reg(rAX))
			a.op(xMOVQ, reg(rAX), c.fsrc(in.F.D))
			return
		}
	}
	if single {
		c.loadSingle(in.F.A, rX0, in.PC)
		c.loadSingle(in.F.B, rX1, in.PC)
		a.op(xMOVQ, reg(rX0), reg(rAX))
		a.op(xMOVQ, reg(rX1), reg(rCX))
	} else {
		a.op(xMOVQ, c.fsrc(in.F.A), reg(rAX))
		a.op(xMOVQ, c.fsrc(in.F.B), reg(rCX))
	}
	x := in.Op == interp.OpFSGNJXD || in.Op == interp.OpFSGNJXS
	n := in.Op == interp.OpFSGNJND || in.Op == interp.OpFSGNJNS
	if !x {
		a.op(xXORQ, reg(rAX), reg(rCX))
	}
	if single {
		a.op(xANDL, imm(1<<31), reg(rCX)) // 32 bits: the upper half is cleared
		if n {
			a.op(xXORL, imm(1<<31), reg(rCX))
		}
	} else {
		a.op(xSHRQ, imm(63), reg(rCX))
		if n {
			a.op(xXORL, imm(1), reg(rCX))
		}
		a.op(xSHLQ, imm(63), reg(rCX))
	}
	a.op(xXORQ, reg(rCX), reg(rAX))
	a.op(xMOVQ, reg(rAX), c.fsrc(in.F.D))
}

// lowerMinMax lowers fmin and fmax:
//
//	X0 = a ; X1 = b ; UCOMISx X1, X0 ; JPS nan ; JEQ equal
//	MINSx X1, X0                  ; (MAXSx) neither NaN nor equal
//	back: store X0
//	equal: ORPD X1, X0 ; JMP back  ; -0 and +0: min is -0 (max: ANDPD, +0)
//	nan:   X0 = a if a is not a NaN, else b if b is not, else the canonical NaN
//
// UCOMISx raises invalid for a signalling NaN operand, as RISC-V's fmin
// and fmax do; a quiet NaN raises nothing.
func (c *compiler) lowerMinMax(in ir.Inst, single bool) {
	a := c.a
	isMax := in.Op == interp.OpFMAXD || in.Op == interp.OpFMAXS
	ucomis, mn := xUCOMISD, xMINSD
	switch {
	case single && isMax:
		ucomis, mn = xUCOMISS, xMAXSS
	case single:
		ucomis, mn = xUCOMISS, xMINSS
	case isMax:
		mn = xMAXSD
	}
	c.loadFloat(in.F.A, rX0, single, in.PC)
	c.loadFloat(in.F.B, rX1, single, in.PC)
	a.op(ucomis, reg(rX1), reg(rX0))
	done := &label{}
	c.outOfLine(condPS, in.PC, func(*label) {
		a.op(ucomis, reg(rX0), reg(rX0))
		a.jcc(condPC, done)
		a.op(xMOVSD, reg(rX1), reg(rX0))
		a.op(ucomis, reg(rX0), reg(rX0))
		a.jcc(condPC, done)
		c.loadConstX(canonNaN(single), rX0)
		a.jmp(done)
	})
	c.outOfLine(condEQ, in.PC, func(back *label) {
		if isMax {
			a.op(xANDPD, reg(rX1), reg(rX0))
		} else {
			a.op(xORPD, reg(rX1), reg(rX0))
		}
		a.jmp(done)
	})
	a.op(mn, reg(rX1), reg(rX0))
	a.bind(done)
	c.fput(rX0, in.F.D)
}

// readable returns the XMM register to read f register r from, as an
// operand of an instruction that writes none of its operands: r's own
// register for a double, or for a single whose box is known (boxed),
// else scratch, which r is loaded into (a single unboxed and its box
// tested, as loadSingle does).
func (c *compiler) readable(r uint8, scratch register, single bool, pc uint64) register {
	if h := c.fr.host[r]; h != 0 && (!single || c.boxed&(1<<r) != 0) {
		return h
	}
	c.loadFloat(r, scratch, single, pc)
	return scratch
}

// quietTest emits, for a quiet compare (ir.FloatArgs.Quiet) of XMM
// registers x and y, a test of both operands' bits for a NaN, before
// the host compare could raise a flag: the magnitude's bits above the
// largest infinity's. A NaN jumps to the returned label, which
// quietJoin binds out of line, with 0 for the answer; nil for a compare
// that is not quiet.
//
//	MOVQ x, AX ; ADDQ AX, AX ; MOVQ $inf<<1, CX ; CMPQ AX, CX ; JA nan
//	MOVQ y, AX ; ADDQ AX, AX ; CMPQ AX, CX ; JA nan
//
// (32-bit forms for a single, whose NaN box is known or was tested.)
func (c *compiler) quietTest(in ir.Inst, single bool, x, y register) *label {
	if !in.F.Quiet {
		return nil
	}
	nan := &label{}
	c.nanBitsTest(single, nan, x, y)
	return nan
}

// nanBitsTest jumps to nan if one of xs holds a NaN of the precision
// single says, testing the bits (a compare would raise invalid for a
// signaling NaN): the magnitude's bits above the largest infinity's. AX
// and CX are clobbered.
//
//	MOVQ x, AX ; ADDx AX, AX ; CMPx AX, inf<<1 ; JA nan
func (c *compiler) nanBitsTest(single bool, nan *label, xs ...register) {
	a := c.a
	add, cmp := xADDQ, xCMPQ
	if single {
		add, cmp = xADDL, xCMPL
	} else {
		a.op(xMOVQ, imm(-0x20000000000000), reg(rCX)) // 0xffe0000000000000: an infinity shifted left
	}
	for _, x := range xs {
		a.op(xMOVQ, reg(x), reg(rAX))
		a.op(add, reg(rAX), reg(rAX))
		if single {
			a.op(cmp, reg(rAX), imm(-0x1000000)) // 0xff000000
		} else {
			a.op(cmp, reg(rAX), reg(rCX))
		}
		a.jcc(condA, nan)
	}
}

// quietJoin binds quietTest's label out of line: DX = 0, the answer for
// a NaN, and back to where the answer is stored.
func (c *compiler) quietJoin(nan *label, pc uint64) {
	if nan == nil {
		return
	}
	a := c.a
	back := &label{}
	a.bind(back)
	c.cold = append(c.cold, func() {
		c.mark(pc)
		a.bind(nan)
		a.op(xXORL, reg(rDX), reg(rDX))
		a.jmp(back)
	})
}

// lowerClass lowers fclass.d and fclass.s: x register Dst gets the one
// bit of the value's class (the RISC-V unprivileged specification's
// fclass table: bit 0 -inf, 1 negative normal, 2 negative subnormal, 3
// -0, 4 +0, 5 positive subnormal, 6 positive normal, 7 +inf, 8
// signaling NaN, 9 quiet NaN), from the bits in DX. A single that is not
// properly NaN-boxed is the canonical NaN (loadSingle). Normal numbers,
// the common case, stay inline; the exponent's extremes go out of line:
//
//	exponent -> AX ; CMP AX, $max ; JEQ infnan ; TEST AX, AX ; JEQ zerosub
//	MOVL $64, CX ; MOVL $2, AX
//	sign: TEST DX, DX ; CMOVLLT AX, CX
//	done: CX -> Dst
func (c *compiler) lowerClass(in ir.Inst, single bool) {
	if in.Dst == 0 {
		return // no flags: nothing to compute
	}
	a := c.a
	shr, shl, test, maxExp := xSHRQ, xSHLQ, xTESTQ, int64(0x7ff)
	expAt, fracShift, quietAt := int64(52), int64(12), int64(51)
	if single {
		c.loadSingle(in.F.A, rX0, in.PC)
		a.op(xMOVQ, reg(rX0), reg(rDX))
		shr, shl, test, maxExp = xSHRL, xSHLL, xTESTL, 0xff
		expAt, fracShift, quietAt = 23, 9, 22
	} else {
		a.op(xMOVQ, c.fsrc(in.F.A), reg(rDX))
	}
	mov := xMOVQ
	if single {
		mov = xMOVL
	}
	infnan, zerosub, sign, done := &label{}, &label{}, &label{}, &label{}
	a.op(mov, reg(rDX), reg(rAX))
	a.op(shr, imm(expAt), reg(rAX))
	a.op(xANDL, imm(maxExp), reg(rAX))
	a.op(xCMPL, reg(rAX), imm(maxExp))
	a.jcc(condEQ, infnan)
	a.op(xTESTL, reg(rAX), reg(rAX))
	a.jcc(condEQ, zerosub)
	a.op(xMOVL, imm(1<<6), reg(rCX))
	a.op(xMOVL, imm(1<<1), reg(rAX))
	a.bind(sign)
	a.op(test, reg(rDX), reg(rDX))
	a.op(xCMOVLLT, reg(rAX), reg(rCX))
	a.bind(done)
	c.store(rCX, in.Dst)
	c.cold = append(c.cold, func() {
		c.mark(in.PC)
		a.bind(infnan)
		a.op(mov, reg(rDX), reg(rAX))
		a.op(shl, imm(fracShift), reg(rAX)) // the fraction: zero for an infinity
		a.op(xMOVL, imm(1<<7), reg(rCX))
		a.op(xMOVL, imm(1<<0), reg(rAX))
		a.jcc(condEQ, sign)
		a.op(mov, reg(rDX), reg(rAX))
		a.op(shr, imm(quietAt), reg(rAX))
		a.op(xANDL, imm(1), reg(rAX))
		a.op(xMOVL, imm(1<<8), reg(rCX))
		a.jcc(condEQ, done)
		a.op(xMOVL, imm(1<<9), reg(rCX))
		a.jmp(done)
		a.bind(zerosub)
		a.op(mov, reg(rDX), reg(rAX))
		a.op(shl, imm(fracShift), reg(rAX)) // the fraction: zero for a zero
		a.op(xMOVL, imm(1<<4), reg(rCX))
		a.op(xMOVL, imm(1<<3), reg(rAX))
		a.jcc(condEQ, sign)
		a.op(xMOVL, imm(1<<5), reg(rCX))
		a.op(xMOVL, imm(1<<2), reg(rAX))
		a.jmp(sign)
	})
}

// boxOnes sets every bit of XMM register x (PCMPEQL x, x): a single
// converted or computed into its low 32 bits is then NaN-boxed, without
// a constant moved in from a general register.
func (c *compiler) boxOnes(x register) { c.a.op(xPCMPEQL, reg(x), reg(x)) }

// prec indexes compiler.numbers: 0 for doubles, 1 for singles.
func prec(single bool) int {
	if single {
		return 1
	}
	return 0
}

// numbersAfter records whether in left a number in the f register it
// writes (compiler.numbers): a conversion from an integer always does,
// of its precision (a single NaN-boxed; a double read as a single, or a
// single as a double, is a NaN or any bits, so the other precision's bit
// is cleared); anything else may leave a NaN. An fused multiply-add whose
// addend is known to be a number needs no test of its result for the one
// case x86 and RISC-V flag differently (a quiet NaN added to 0 * inf):
// in spectral's loops the addend is an index converted to a double.
func (c *compiler) numbersAfter(in ir.Inst) {
	floatUses(&in, func(uint8) {}, func(d uint8) {
		bit := uint32(1) << d
		c.numbers[0] &^= bit
		c.numbers[1] &^= bit
		switch in.Op {
		case interp.OpFCVTDW, interp.OpFCVTDWU, interp.OpFCVTDL, interp.OpFCVTDLU:
			c.numbers[0] |= bit
		case interp.OpFCVTSW, interp.OpFCVTSWU, interp.OpFCVTSL, interp.OpFCVTSLU:
			c.numbers[1] |= bit
		}
	})
}
