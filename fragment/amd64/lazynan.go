// Lazy NaN canonicalization: which f registers may hold a NaN other than RISC-V's canonical one -> the fix-up each bit-reading consumer and each exit needs, and none between arithmetic operations.

package amd64

import (
	"rvdyn/fragment/ir"
	"rvdyn/interp"
)

// nanState follows, instruction by instruction along the trace, the f
// registers whose XMM register may hold a NaN whose bits are not the
// canonical NaN RISC-V's arithmetic returns. x86 arithmetic returns an
// operand's NaN, quieted, or its own default NaN (negative); RISC-V
// returns the canonical NaN. The two differ only in the bits, never in
// being a NaN, and x86's NaNs are always quiet, as the canonical one is.
// So an arithmetic result is left as x86 computed it ("dirty") and
// replaced by the canonical NaN (canonicalize: UCOMISx and an
// out-of-line fix-up) only where its bits can be seen:
//
//   - by an instruction that reads an operand's bits (fsd, fsw, fmv.x.*,
//     the sign injections, fclass) or reads it at another precision (a
//     NaN-boxed single's upper half, or a double's, decides what the
//     other precision reads);
//   - by an exit, which writes the register back to State;
//   - at a self-loop's head, reached by the back edge: registers the body
//     writes before it reads them or can leave (fredefinedAtHead) are
//     left dirty there, since nothing on the path to their next value
//     can see them; so are those it reads only as values before it
//     writes them (headNaNs: accumulators), which the head takes as
//     dirty behind a test on entry; the others are made canonical on
//     the back edge.
//
// An instruction that reads its operands as values of their own
// precision (arithmetic, fused multiply-adds, fmin and fmax, compares,
// conversions) gives the same result, flags included, for any quiet NaN
// operand as for the canonical one, so it reads dirty registers as they
// are. On spectral's inner loop (a division and a sum per iteration)
// this keeps one check of two.
//
// Invariants: a dirty register is allocated (State slots are always
// canonical); at the fragment entry and at a self-loop's head nothing
// that can be read is dirty; an exit stub canonicalizes the dirty
// registers it writes back. As in sext.go the state is per position in
// the trace: exitStub captures it when its exit is created.
type nanState struct {
	on bool // Options.NoLazyNaN is off
	// dbl and sgl: bit r is set when f register r's XMM register may
	// hold a non-canonical double NaN, or a NaN-boxed single whose low
	// half may be a non-canonical single NaN.
	dbl, sgl uint32
	// lazy is set by finishFloat when it left the result of the
	// instruction being lowered dirty; lazySgl when that result is a
	// single (fcvt.s.d's, though its operand is a double).
	lazy, lazySgl bool
}

// valueRead reports whether in reads its f operands as values of the
// precision single (true) or double, so that a dirty operand of that
// precision may be read as it is: its result, NaN or not, and its flags
// are those the canonical NaN would give.
func valueRead(op interp.Op) (ok, single bool) {
	switch op {
	case interp.OpFADDD, interp.OpFSUBD, interp.OpFMULD, interp.OpFDIVD, interp.OpFSQRTD,
		interp.OpFMADDD, interp.OpFMSUBD, interp.OpFNMSUBD, interp.OpFNMADDD,
		interp.OpFMIND, interp.OpFMAXD, interp.OpFEQD, interp.OpFLTD, interp.OpFLED,
		interp.OpFCVTWD, interp.OpFCVTLD, interp.OpFCVTWUD, interp.OpFCVTLUD, interp.OpFCVTSD:
		return true, false
	case interp.OpFADDS, interp.OpFSUBS, interp.OpFMULS, interp.OpFDIVS, interp.OpFSQRTS,
		interp.OpFMADDS, interp.OpFMSUBS, interp.OpFNMSUBS, interp.OpFNMADDS,
		interp.OpFMINS, interp.OpFMAXS, interp.OpFEQS, interp.OpFLTS, interp.OpFLES,
		interp.OpFCVTWS, interp.OpFCVTLS, interp.OpFCVTWUS, interp.OpFCVTLUS, interp.OpFCVTDS:
		return true, true
	}
	return false, false
}

// nanBefore makes the dirty f registers in reads canonical unless in
// reads them as values of their own precision (valueRead).
func (c *compiler) nanBefore(in ir.Inst) {
	if c.fn.dbl|c.fn.sgl == 0 {
		return
	}
	ok, single := valueRead(in.Op)
	floatUses(&in, func(r uint8) {
		bit := uint32(1) << r
		switch {
		case c.fn.dbl&bit != 0 && !(ok && !single):
			c.canonicalizeReg(r, false, in.PC)
		case c.fn.sgl&bit != 0 && !(ok && single):
			c.canonicalizeReg(r, true, in.PC)
		}
	}, func(uint8) {})
}

// nanAfter records what in left in its destination f register: dirty
// if finishFloat left it so, canonical otherwise.
func (c *compiler) nanAfter(in ir.Inst) {
	floatUses(&in, func(uint8) {}, func(d uint8) {
		bit := uint32(1) << d
		c.fn.dbl &^= bit
		c.fn.sgl &^= bit
		if c.fn.lazy {
			if c.fn.lazySgl {
				c.fn.sgl |= bit
			} else {
				c.fn.dbl |= bit
			}
		}
	})
	c.fn.lazy = false
}

// canonicalizeReg makes f register r's XMM register canonical (a dirty
// single or double, as single says), and marks it so; another dirty
// register of the same precision, if there is one, is made canonical
// with it (canonicalizePair), earlier than its bits are seen, which
// changes nothing but the cost: the value is final until its register
// is written, and what reads it as a value gives the same for either NaN.
func (c *compiler) canonicalizeReg(r uint8, single bool, pc uint64) {
	c.fn.dbl &^= 1 << r
	c.fn.sgl &^= 1 << r
	if p, ok := c.nanPartner(single, 1<<r); ok {
		c.canonicalizePair(c.fr.host[r], c.fr.host[p], single, func() {}, rAX, pc)
		return
	}
	c.canonicalize(c.fr.host[r], single, pc)
}

// nanPartner returns a dirty f register of the given precision that is
// in neither not nor the other precision's dirty set, and clears its
// dirty bit: the caller makes it canonical.
func (c *compiler) nanPartner(single bool, not uint32) (uint8, bool) {
	set, other := c.fn.dbl, c.fn.sgl
	if single {
		set, other = other, set
	}
	set &^= not | other
	for r := uint8(0); r < 32; r++ {
		if set&(1<<r) != 0 && c.fr.host[r] != 0 {
			c.fn.dbl &^= 1 << r
			c.fn.sgl &^= 1 << r
			return r, true
		}
	}
	return 0, false
}

// canonicalizePair makes XMM registers x and y canonical with one
// compare on the path, unordered when either holds a NaN (NaN
// canonicalization and FMA checks are FP-port work, the resource
// floating-point loops run out of first):
//
//	UCOMISx y, x ; JP pair ; back:
//	pair: UCOMISx x, x ; JNP 1f ; fixX ; x = canonical NaN
//	1:    UCOMISx y, y ; JNP 2f ; y = canonical NaN
//	2:    JMP back
//
// fixX runs before x is replaced (a fused multiply-add's invalid test on
// its factors); tmp is the scratch register.
func (c *compiler) canonicalizePair(x, y register, single bool, fixX func(), tmp register, pc uint64) {
	ucomis := xUCOMISD
	if single {
		ucomis = xUCOMISS
	}
	a := c.a
	a.op(ucomis, reg(y), reg(x))
	c.outOfLine(condPS, pc, func(*label) {
		okX, okY := &label{}, &label{}
		a.op(ucomis, reg(x), reg(x))
		a.jcc(condPC, okX)
		fixX()
		c.loadConstXWith(canonNaN(single), x, tmp)
		a.bind(okX)
		a.op(ucomis, reg(y), reg(y))
		a.jcc(condPC, okY)
		c.loadConstXWith(canonNaN(single), y, tmp)
		a.bind(okY)
	})
}

// canonicalizeDirty makes the f registers of mask that e found dirty
// canonical, in e's stub: CX is the scratch register there (an indirect
// stub holds the jump target in AX).
func (c *compiler) canonicalizeDirty(e *exitStub, mask uint32) {
	for _, single := range []bool{false, true} {
		set := e.nanDbl
		if single {
			set = e.nanSgl
		}
		var pending register // one of a pair waiting for the other
		for r := uint8(0); r < 32; r++ {
			if mask&set&(1<<r) == 0 {
				continue
			}
			if pending == 0 {
				pending = c.fr.host[r]
				continue
			}
			c.canonicalizePair(pending, c.fr.host[r], single, func() {}, rCX, e.From)
			pending = 0
		}
		if pending != 0 {
			c.canonicalizeWith(pending, single, rCX, e.From)
		}
	}
}

// fredefinedAtHead returns the f registers that a self-loop's body writes
// before it reads them or can leave through any exit: such a register
// may reach the head dirty, since nothing on the path from the head to
// its next value can see its bits. The back edge then need not
// canonicalize it, except on its way out when the budget is spent.
//
// An OpFrm's exit does not end the search when nothing in the fragment
// writes frm: frm is then the same in every iteration, so that exit is
// taken in the first iteration or never, and nothing is left dirty by an
// earlier one there. (Most arithmetic rounds by the dynamic mode, so a
// loop's first such operation is preceded by an OpFrm.)
func fredefinedAtHead(f *ir.Func) uint32 {
	frmFixed := true
	for i := range f.Insts {
		if in := &f.Insts[i]; in.Op == interp.OpCSRRW && in.Off != interp.CSRFflags {
			frmFixed = false
		}
	}
	var dead, seen uint32
	for i := range f.Insts {
		in := &f.Insts[i]
		if in.Op == ir.OpFrm && frmFixed {
			continue
		}
		if in.Exit >= 0 || in.Op == ir.OpExit {
			break // every f register written so far is written back there
		}
		floatUses(in, func(r uint8) { seen |= 1 << r }, func(d uint8) {
			if seen&(1<<d) == 0 {
				dead |= 1 << d
			}
			seen |= 1 << d
		})
	}
	return dead
}

// headNaNs returns the f registers a self-loop's body reads only as
// values of one precision (doubles [0], singles [1]) before it writes
// them, such as an accumulator (s += x): the back edge may leave them as
// x86 computed them, since what reads them first gives the same for any
// quiet NaN, if the head takes them as dirty, so that an exit or a read
// of their bits before their next write makes them canonical. They must
// have an XMM register (dirty ones do), and not be in fredefined (which
// the back edge leaves dirty already). Their last write in the body must
// be arithmetic of that precision (a load, move or sign injection keeps
// the guest's NaN bits), so that dirty means what the head takes it to.
// On entry they hold the guest's bits, which a stub must not change:
// headNaNCheck leaves to the interpreter when one is a NaN there.
func headNaNs(f *ir.Func, fredefined uint32, host [32]register) [2]uint32 {
	const unseen, ok, no = 0, 1, 2
	var state [32]uint8
	// The precision of the reads before the first write, and of the
	// last write's arithmetic; -1: none.
	var prec, lastPrec [32]int8
	for r := range prec {
		prec[r], lastPrec[r] = -1, -1
	}
	for i := range f.Insts {
		in := &f.Insts[i]
		vr, single := valueRead(in.Op)
		p := int8(0)
		if single {
			p = 1
		}
		floatUses(in, func(r uint8) {
			if state[r] != unseen {
				return
			}
			if !vr || prec[r] >= 0 && prec[r] != p {
				state[r] = no
				return
			}
			prec[r] = p
		}, func(d uint8) {
			if state[d] == unseen {
				state[d] = ok
			}
			// Only arithmetic computes a NaN RISC-V would make
			// canonical; a load, move or sign injection leaves the
			// guest's bits, which no stub may change.
			lastPrec[d] = -1
			if vr {
				lastPrec[d] = 0
				if ir.SingleResult(in.Op) {
					lastPrec[d] = 1
				}
			}
		})
	}
	var out [2]uint32
	for r := uint8(0); r < 32; r++ {
		bit := uint32(1) << r
		if state[r] != ok || fredefined&bit != 0 || host[r] == 0 || prec[r] < 0 || lastPrec[r] != prec[r] {
			continue
		}
		out[prec[r]] |= bit
	}
	return out
}

// headNaNCheck emits, on entry, the test that no register of headNaN
// holds a NaN of its precision, else an exit to the interpreter at the
// head before anything is done (an entry test: where it keeps failing the
// head is compiled again without, see exit.Record.EntryTest). With it, a
// stub that makes such a register canonical changes nothing the guest
// put there.
// The test is on the bits (nanBitsTest).
func (c *compiler) headNaNCheck() {
	if c.headNaN[0]|c.headNaN[1] == 0 {
		return
	}
	s := c.headEntryTest()
	for p := range c.headNaN {
		var xs []register
		for r := uint8(0); r < 32; r++ {
			if c.headNaN[p]&(1<<r) != 0 {
				xs = append(xs, c.fr.host[r])
			}
		}
		if len(xs) > 0 {
			c.nanBitsTest(p == 1, s.stub, xs...)
		}
	}
}
