// Floating-point conversions: fcvt between f and x registers -> CVT and ROUNDSx code with RISC-V's rounding modes, saturation and flags.

package amd64

import (
	"rvdyn/fragment/ir"
	"rvdyn/interp"
)

// lowerToInt lowers fcvt.w.d, fcvt.l.d, fcvt.w.s and fcvt.l.s:
//
//	rtz: CVTTSx2SI a, DX ; dynamic: CVTSx2SI a, DX (the host rounds by frm)
//	rne, rdn, rup: ROUNDSx $mode|inexact-suppressed, a, X1 ; CVTTSx2SI X1, DX
//	CMPx DX, $1 ; JOS indefinite      ; only the most negative integer overflows
//	[rdn, rup: UCOMISx a, X1 ; JNE inexact]
//	done: (MOVLQSX DX, DX) ; x[rd] = DX
//	indefinite: DX = the largest integer if a is a NaN or positive
//	inexact: raise inexact (1/3), JMP done
//
// The rounded conversions suppress ROUNDSx's inexact flag so that an
// out-of-range input raises invalid alone, as RISC-V wants, and raise it
// themselves when the rounded value differs from the input.
func (c *compiler) lowerToInt(in ir.Inst, single bool) {
	a := c.a
	long := in.Op == interp.OpFCVTLD || in.Op == interp.OpFCVTLS
	cvtt, cvt, round, ucomis := xCVTTSD2SL, xCVTSD2SL, xROUNDSD, xUCOMISD
	if single {
		cvtt, cvt, round, ucomis = xCVTTSS2SL, xCVTSS2SL, xROUNDSS, xUCOMISS
	}
	switch {
	case long && single:
		cvtt, cvt = xCVTTSS2SQ, xCVTSS2SQ
	case long:
		cvtt, cvt = xCVTTSD2SQ, xCVTSD2SQ
	}
	src := c.fsrc(in.F.A)
	if single {
		c.loadSingle(in.F.A, rX0, in.PC)
		src = reg(rX0)
	}
	rounded := false // ROUNDSx, then a truncating conversion
	switch in.F.RM {
	case 7:
		a.op(cvt, src, reg(rDX)) // by frm, the host's rounding mode (ir.OpFrm)
	case 1:
		a.op(cvtt, src, reg(rDX))
	case 4:
		c.roundAway(src, single)
		a.op(cvtt, reg(rX1), reg(rDX))
		rounded = true
	default:
		mode := map[uint8]int64{0: 0, 2: 1, 3: 2}[in.F.RM] // to nearest even, toward -inf, toward +inf
		a.op3(round, imm(mode|8), src, reg(rX1))
		a.op(cvtt, reg(rX1), reg(rDX))
		rounded = true
	}
	done := &label{}
	cmp := xCMPL
	if long {
		cmp = xCMPQ
	}
	a.op(cmp, reg(rDX), imm(1))
	c.outOfLine(condOS, in.PC, func(back *label) {
		max := &label{}
		if single {
			a.op(xMOVSD, reg(rX0), reg(rX2))
		} else {
			a.op(xMOVSD, src, reg(rX2))
		}
		a.op(xXORPS, reg(rX3), reg(rX3))
		a.op(ucomis, reg(rX3), reg(rX2)) // a against 0
		a.jcc(condA, max)
		a.jcc(condPS, max)
		if rounded {
			// The most negative integer itself is in range: its inexact
			// flag is still to be raised (ROUNDSx suppressed it).
			lowest := map[[2]bool]uint64{{false, false}: 0xc1e0000000000000, {false, true}: 0xc3e0000000000000,
				{true, false}: 0xcf000000, {true, true}: 0xdf000000}[[2]bool{single, long}]
			c.loadConstX(lowest, rX2)
			a.op(ucomis, reg(rX2), reg(rX1))
			a.jcc(condEQ, back)
		}
		a.jmp(done) // DX holds the most negative integer, the answer
		a.bind(max)
		if long {
			a.op(xMOVQ, imm(1<<63-1), reg(rDX))
		} else {
			a.op(xMOVL, imm(1<<31-1), reg(rDX))
		}
		a.jmp(done)
	})
	if rounded {
		a.op(ucomis, src, reg(rX1))
		c.outOfLine(condNE, in.PC, func(*label) { c.raiseInexact() })
	}
	a.bind(done)
	if !long {
		a.op(xMOVLQSX, reg(rDX), reg(rDX))
	}
	c.store(rDX, in.Dst)
}

// roundAway puts src rounded to an integer, ties away from zero (rmm),
// into X1, raising no flag (X2, X3 and AX are clobbered):
//
//	ROUNDSx $(trunc|suppress), src, X1   ; t
//	MOVSx src, X2 ; SUBSx X1, X2          ; x - t, exact
//	ANDPD |mask|, X2 ; UCOMISx 0.5, X2 ; JB done
//	ADDSx or SUBSx 1.0, X1                ; by the sign of x
//
// x - t is exact and its magnitude below 1, so the comparison with one
// half decides. A NaN or an infinity makes x - t a NaN, which the
// comparison leaves alone (the conversion after raises invalid for them,
// as the subtraction may).
func (c *compiler) roundAway(src operand, single bool) {
	a := c.a
	round, mov, sub, add, ucomis := xROUNDSD, xMOVSD, xSUBSD, xADDSD, xUCOMISD
	abs, half, one := uint64(1<<63-1), uint64(0x3fe0000000000000), uint64(0x3ff0000000000000)
	if single {
		round, mov, sub, add, ucomis = xROUNDSS, xMOVSS, xSUBSS, xADDSS, xUCOMISS
		abs, half, one = 1<<31-1, 0x3f000000, 0x3f800000
	}
	a.op3(round, imm(3|8), src, reg(rX1))
	a.op(mov, src, reg(rX2)) // src is never X2: X0-X3 are scratch
	a.op(sub, reg(rX1), reg(rX2))
	c.loadConstX(abs, rX3)
	a.op(xANDPD, reg(rX3), reg(rX2))
	c.loadConstX(half, rX3)
	a.op(ucomis, reg(rX3), reg(rX2))
	done := &label{}
	a.jcc(condB, done) // below one half, or unordered
	c.loadConstX(one, rX3)
	a.op(xMOVQ, src, reg(rAX)) // the sign of x
	if single {
		a.op(xTESTL, reg(rAX), reg(rAX))
	} else {
		a.op(xTESTQ, reg(rAX), reg(rAX))
	}
	neg := &label{}
	a.jcc(condLT, neg)
	a.op(add, reg(rX3), reg(rX1))
	a.jmp(done)
	a.bind(neg)
	a.op(sub, reg(rX3), reg(rX1))
	a.bind(done)
}

// lowerFromInt lowers the conversions from x registers: fcvt.d.w,
// fcvt.d.wu and fcvt.d.l, fcvt.s.w, fcvt.s.wu and fcvt.s.l (round to
// nearest, the host's mode). A single is converted into a register that
// already holds the NaN box, which the conversion leaves in place.
func (c *compiler) lowerFromInt(in ir.Inst) {
	a := c.a
	single := in.Op == interp.OpFCVTSW || in.Op == interp.OpFCVTSWU || in.Op == interp.OpFCVTSL
	w := c.fwork(in.F.D) // no f operand: d's own register if it has one
	if single {
		c.boxOnes(w)
	} else {
		a.op(xXORPS, reg(w), reg(w))
	}
	var src operand
	var cvt mnemonic
	switch in.Op {
	case interp.OpFCVTDW, interp.OpFCVTSW: // the low 32 bits, signed
		src, cvt = c.opnd(in.A, rDX), xCVTSL2SD
		if src.isImm() {
			c.load(in.A, rDX)
			src = reg(rDX)
		}
	case interp.OpFCVTDWU, interp.OpFCVTSWU: // the low 32 bits, unsigned
		a.op(xMOVL, c.opnd(in.A, rDX), reg(rDX))
		src, cvt = reg(rDX), xCVTSQ2SD
	default:
		src, cvt = c.opnd(in.A, rDX), xCVTSQ2SD
		if src.isImm() {
			c.load(in.A, rDX)
			src = reg(rDX)
		}
	}
	switch {
	case single && cvt == xCVTSL2SD:
		cvt = xCVTSL2SS
	case single:
		cvt = xCVTSQ2SS
	}
	a.op(cvt, src, reg(w))
	c.fput(w, in.F.D)
}

// exactGuard leaves through in's exit (step i) unless the integer
// conversion in, under a static rounding mode, is exact
// (ir.ExactGuarded): the integer, in CX, shifted right by the
// significand's width is 0, or -1 for a signed one:
//
//	MOV src, CX ; SAR $53, CX ; ADD $1, CX ; CMP CX, $1 ; JA exit   (signed)
//	MOV src, CX ; SHR $53, CX ; JNE exit                           (unsigned)
//
// with 24 for a single, and the 32-bit forms for fcvt.s.w and fcvt.s.wu.
func (c *compiler) exactGuard(i int, in ir.Inst) {
	if !ir.ExactGuarded(in.Op, in.F.RM) || in.Exit < 0 {
		return
	}
	a := c.a
	e := c.stubFor(in.Exit, i)
	width := int64(53)
	if in.Op == interp.OpFCVTSW || in.Op == interp.OpFCVTSWU || in.Op == interp.OpFCVTSL || in.Op == interp.OpFCVTSLU {
		width = 24
	}
	switch in.Op {
	case interp.OpFCVTSW:
		a.op(xMOVL, c.opnd(in.A, rCX), reg(rCX))
		a.op(xSARL, imm(width), reg(rCX))
		a.op(xADDL, imm(1), reg(rCX))
		a.op(xCMPL, reg(rCX), imm(1))
		a.jcc(condA, e.stub)
	case interp.OpFCVTSWU:
		a.op(xMOVL, c.opnd(in.A, rCX), reg(rCX))
		a.op(xSHRL, imm(width), reg(rCX))
		a.jcc(condNE, e.stub)
	case interp.OpFCVTDL, interp.OpFCVTSL:
		c.load(in.A, rCX)
		a.op(xSARQ, imm(width), reg(rCX))
		a.op(xADDQ, imm(1), reg(rCX))
		a.op(xCMPQ, reg(rCX), imm(1))
		a.jcc(condA, e.stub)
	default: // fcvt.d.lu, fcvt.s.lu
		c.load(in.A, rCX)
		a.op(xSHRQ, imm(width), reg(rCX))
		a.jcc(condNE, e.stub)
	}
}

// raiseInvalid raises the invalid flag (0/0 in X2).
func (c *compiler) raiseInvalid() {
	c.a.op(xXORPS, reg(rX2), reg(rX2))
	c.a.op(xDIVSD, reg(rX2), reg(rX2))
}

// raiseInexact raises the inexact flag alone (1/3 in X2; AX and X3 are
// clobbered too).
func (c *compiler) raiseInexact() {
	a := c.a
	a.op(xMOVL, imm(1), reg(rAX))
	a.op(xCVTSL2SD, reg(rAX), reg(rX2))
	a.op(xMOVL, imm(3), reg(rAX))
	a.op(xCVTSL2SD, reg(rAX), reg(rX3))
	a.op(xDIVSD, reg(rX3), reg(rX2))
}

// lowerToUnsigned lowers fcvt.wu.d, fcvt.lu.d, fcvt.wu.s and fcvt.lu.s
// (the result of a .wu sign-extended from 32 bits, as RV64 wants):
//
//	ROUNDSx $mode|inexact-suppressed, a, X1 ; X2 = 0 ; UCOMISx X2, X1
//	JPS nan ; JB negative                 ; NaN: all ones; below 0: 0 (both invalid)
//	UCOMISx 2^32 (2^64), X1 ; JAE big     ; all ones, invalid
//	UCOMISx a, X1 ; JNE inexact           ; raise inexact, come back
//	CVTTSx2SQ X1, DX                      ; (lu: values from 2^63 out of line)
//
// A negative input that rounds to zero is in range (0, inexact).
func (c *compiler) lowerToUnsigned(in ir.Inst, single bool) {
	a := c.a
	long := in.Op == interp.OpFCVTLUD || in.Op == interp.OpFCVTLUS
	round, ucomis, cvtt, sub := xROUNDSD, xUCOMISD, xCVTTSD2SQ, xSUBSD
	limit, half := uint64(0x41f0000000000000), uint64(0x43e0000000000000) // 2^32, 2^63
	if long {
		limit = 0x43f0000000000000 // 2^64
	}
	if single {
		round, ucomis, cvtt, sub = xROUNDSS, xUCOMISS, xCVTTSS2SQ, xSUBSS
		limit, half = 0x4f800000, 0x5f000000
		if long {
			limit = 0x5f800000
		}
	}
	src := c.fsrc(in.F.A)
	if single {
		c.loadSingle(in.F.A, rX0, in.PC)
		src = reg(rX0)
	}
	mode := map[uint8]int64{0: 0, 1: 3, 2: 1, 3: 2, 7: 4}[in.F.RM] // 4: MXCSR's, which is frm (ir.OpFrm)
	a.op3(round, imm(mode|8), src, reg(rX1))
	done := &label{}
	invalid := func(v int64) func(*label) {
		return func(*label) {
			c.raiseInvalid()
			a.op(xMOVQ, imm(v), reg(rDX))
			a.jmp(done)
		}
	}
	a.op(xXORPS, reg(rX2), reg(rX2))
	a.op(ucomis, reg(rX2), reg(rX1))
	c.outOfLine(condPS, in.PC, invalid(-1))
	c.outOfLine(condB, in.PC, invalid(0))
	c.loadConstX(limit, rX2)
	a.op(ucomis, reg(rX2), reg(rX1))
	c.outOfLine(condAE, in.PC, invalid(-1))
	a.op(ucomis, src, reg(rX1))
	c.outOfLine(condNE, in.PC, func(*label) { c.raiseInexact() })
	if long {
		c.loadConstX(half, rX2)
		a.op(ucomis, reg(rX2), reg(rX1))
		c.outOfLine(condAE, in.PC, func(*label) {
			a.op(sub, reg(rX2), reg(rX1)) // exact: X1 in [2^63, 2^64)
			a.op(cvtt, reg(rX1), reg(rDX))
			a.op(xMOVQ, imm(-1<<63), reg(rCX))
			a.op(xXORQ, reg(rCX), reg(rDX))
			a.jmp(done)
		})
	}
	a.op(cvtt, reg(rX1), reg(rDX))
	a.bind(done)
	if !long {
		a.op(xMOVLQSX, reg(rDX), reg(rDX))
	}
	c.store(rDX, in.Dst)
}

// lowerFromUnsigned lowers fcvt.d.lu and fcvt.s.lu: CVTSQ2Sx converts
// signed values; one with the top bit set is halved, its lowest bit kept
// sticky so that it rounds as the whole value would, converted and
// doubled (exactly).
func (c *compiler) lowerFromUnsigned(in ir.Inst) {
	a := c.a
	single := in.Op == interp.OpFCVTSLU
	cvt, add := xCVTSQ2SD, xADDSD
	if single {
		cvt, add = xCVTSQ2SS, xADDSS
		c.boxOnes(rX0)
	} else {
		a.op(xXORPS, reg(rX0), reg(rX0))
	}
	c.load(in.A, rDX)
	done := &label{}
	a.op(xTESTQ, reg(rDX), reg(rDX))
	c.outOfLine(condLT, in.PC, func(*label) {
		a.op(xMOVQ, reg(rDX), reg(rCX))
		a.op(xSHRQ, imm(1), reg(rCX))
		a.op(xANDL, imm(1), reg(rDX))
		a.op(xORQ, reg(rDX), reg(rCX))
		a.op(cvt, reg(rCX), reg(rX0))
		a.op(add, reg(rX0), reg(rX0))
		a.jmp(done)
	})
	a.op(cvt, reg(rDX), reg(rX0))
	a.bind(done)
	c.fput(rX0, in.F.D)
}
