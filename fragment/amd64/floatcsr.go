// Floating-point CSRs: reads and writes of fflags, frm and fcsr -> MXCSR's flags and rounding control, and the rounding mode a fragment runs in.

package amd64

import (
	"rvdyn/fragment/ir"
	"rvdyn/interp"
)

// lowerFrm lowers ir.OpFrm: nothing to do while frm is rne (the host's
// mode on entry, and kept equal to frm by every write of frm in native
// code); otherwise, out of line, MXCSR's rounding control gets frm's
// mode, or the instruction leaves if the host has none (rmm, reserved).
func (c *compiler) lowerFrm(i int, in ir.Inst) {
	c.frmCheck(c.stubFor(in.Exit, i).stub, in.PC)
}

// frmCheck emits an OpFrm's test at pc, leaving through exit if frm
// holds a mode the host lacks (in the body, or on entry: ir.FrmHoist).
func (c *compiler) frmCheck(exit *label, pc uint64) {
	a := c.a
	fcsr := mem(rSt, StateFCSR)
	a.op(xTESTL, imm(0xe0), fcsr)
	c.outOfLine(condNE, pc, func(*label) {
		a.op(xMOVL, fcsr, reg(rAX))
		a.op(xSHRL, imm(5), reg(rAX))
		a.op(xANDL, imm(7), reg(rAX))
		a.op(xCMPL, reg(rAX), imm(3))
		a.jcc(condA, exit)
		c.installRounding()
	})
}

// installRounding sets MXCSR's rounding control to the mode of frm value
// AX (0..3: rtz 3, rdn 1, rup 2, the 2-bit fields of 0x9c indexed by
// frm); AX and CX are clobbered.
func (c *compiler) installRounding() {
	a := c.a
	tmp := mem(rSt, StateMXCSR)
	a.op(xMOVL, reg(rAX), reg(rCX))
	a.op(xADDL, reg(rCX), reg(rCX))
	a.op(xMOVL, imm(0x9c), reg(rAX))
	a.op(xSHRL, reg(rCX), reg(rAX))
	a.op(xANDL, imm(3), reg(rAX))
	a.op(xSHLL, imm(13), reg(rAX))
	a.op(xSTMXCSR, none, tmp)
	a.op(xANDL, imm(^0x6000), tmp)
	a.op(xORL, reg(rAX), tmp)
	a.op(xLDMXCSR, tmp, none)
}

// fflagsInto puts the guest's fflags into DX: State's, ORed with what
// native code raised since it was entered (MXCSR's sticky flags, mapped
// as fragment.State.AccrueFlags maps them; AX and CX are clobbered):
//
//	NX = PE>>5 | UF = UE>>3 | OF = OE>>1 | DZ = ZE<<1 | NV = IE<<4
//
// The four flags in MXCSR bits 2..5 map to fflags bits 3..0, their order
// reversed: a 64-bit constant holds the reversal of every 4-bit value in
// its nibbles (flagNibbles), and MXCSR & 0x3c is the shift that brings
// the right one down:
//
//	STMXCSR tmp ; MOVL tmp, AX ; MOVL AX, CX ; ANDL $0x3c, CX
//	MOVQ $flagNibbles, DX ; SHRQ CX, DX ; ANDL $15, DX         ; NX UF OF DZ
//	ANDL $1, AX ; SHLL $4, AX ; ORL AX, DX                      ; NV
//	MOVL fcsr, CX ; ANDL $0x1f, CX ; ORL CX, DX                  ; State's
func (c *compiler) fflagsInto() {
	a := c.a
	tmp := mem(rSt, StateMXCSR)
	a.op(xSTMXCSR, none, tmp)
	a.op(xMOVL, tmp, reg(rAX))
	c.fflagsFromAX()
}

// fflagsFromAX is fflagsInto from the MXCSR value in AX (a snapshot,
// flagsnap.go): the guest's fflags into DX; AX and CX are clobbered.
func (c *compiler) fflagsFromAX() {
	a := c.a
	a.op(xMOVL, reg(rAX), reg(rCX))
	a.op(xANDL, imm(0x3c), reg(rCX))
	a.op(xMOVQ, imm(flagNibbles), reg(rDX))
	a.op(xSHRQ, reg(rCX), reg(rDX))
	a.op(xANDL, imm(15), reg(rDX))
	a.op(xANDL, imm(1), reg(rAX))
	a.op(xSHLL, imm(4), reg(rAX))
	a.op(xORL, reg(rAX), reg(rDX))
	a.op(xMOVL, mem(rSt, StateFCSR), reg(rCX))
	a.op(xANDL, imm(0x1f), reg(rCX))
	a.op(xORL, reg(rCX), reg(rDX))
}

// flagNibbles holds in nibble i the bits of i in reverse order (fflagsInto).
const flagNibbles = -0x084c2a6e195d3b80 // 0xf7b3d591e6a2c480 as an int64

// csrInto puts the CSR numbered csr (fflags, frm or fcsr) into DX.
func (c *compiler) csrInto(csr int64) {
	a := c.a
	fcsr := mem(rSt, StateFCSR)
	if csr == interp.CSRFrm {
		a.op(xMOVL, fcsr, reg(rDX))
		a.op(xSHRL, imm(5), reg(rDX))
		a.op(xANDL, imm(7), reg(rDX))
		return
	}
	c.fflagsInto()
	if csr == interp.CSRFcsr {
		a.op(xMOVL, fcsr, reg(rCX))
		a.op(xANDL, imm(0xe0), reg(rCX))
		a.op(xORL, reg(rCX), reg(rDX))
	}
}

// lowerCSR lowers the CSR accesses fragments run (ir.CSRCompiles): reads
// of fflags, frm and fcsr, and writes of them. A write of fflags also
// clears the host's sticky flags (they are part of the old value); a
// write of frm installs its rounding mode in MXCSR at once when the host
// has it (else the next ir.OpFrm leaves).
func (c *compiler) lowerCSR(i int, in ir.Inst) {
	a := c.a
	fcsr, tmp := mem(rSt, StateFCSR), mem(rSt, StateMXCSR)
	clearFlags := func() {
		a.op(xSTMXCSR, none, tmp)
		a.op(xANDL, imm(^0x3f), tmp)
		a.op(xLDMXCSR, tmp, none)
	}
	install := func() { // frm in AX
		skip := &label{}
		a.op(xCMPL, reg(rAX), imm(3))
		a.jcc(condA, skip)
		c.installRounding()
		a.bind(skip)
	}
	if ir.IsCSRRead(in.Op) {
		if k, ok := c.snaps.slot[i]; ok {
			c.lowerSnap(k)
			c.snapLive = k + 1
			return
		}
		c.csrInto(in.Off)
		c.store(rDX, in.Dst)
		return
	}
	if k, ok := c.snaps.restore[i]; ok {
		c.lowerRestore(k)
		return
	}
	// The CSR = A, Dst = its old value (A is read after the old value
	// is computed, before Dst is written).
	if in.Dst != 0 {
		c.csrInto(in.Off)
	}
	c.load(in.A, rAX)
	switch in.Off {
	case interp.CSRFflags:
		a.op(xANDL, imm(0x1f), reg(rAX))
		a.op(xMOVQ, fcsr, reg(rCX))
		a.op(xANDQ, imm(^0x1f), reg(rCX))
		a.op(xORQ, reg(rAX), reg(rCX))
		a.op(xMOVQ, reg(rCX), fcsr)
		clearFlags()
	case interp.CSRFrm:
		a.op(xANDL, imm(7), reg(rAX))
		a.op(xMOVQ, fcsr, reg(rCX))
		a.op(xANDQ, imm(^0xe0), reg(rCX))
		a.op(xSHLL, imm(5), reg(rAX))
		a.op(xORQ, reg(rAX), reg(rCX))
		a.op(xMOVQ, reg(rCX), fcsr)
		a.op(xSHRL, imm(5), reg(rAX))
		install()
	default: // fcsr
		a.op(xANDL, imm(0xff), reg(rAX))
		a.op(xMOVQ, reg(rAX), fcsr)
		clearFlags()
		a.op(xMOVL, fcsr, reg(rAX))
		a.op(xSHRL, imm(5), reg(rAX))
		install()
	}
	c.store(rDX, in.Dst)
}
