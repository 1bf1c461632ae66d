// Instruction lowering: one IR instruction -> x86-64 instructions (loads, stores with their bounds checks, guards, jalr checks).

package amd64

import (
	"math/bits"

	"rvdyn/fragment/ir"
	"rvdyn/interp"
)

// host returns the host register holding guest register r, or 0.
func (c *compiler) host(r uint8) register {
	if r == 0 {
		return 0
	}
	return c.ra.host[r]
}

// hostOf returns the host register holding v, or 0 (constants, and
// registers that live in State).
func (c *compiler) hostOf(v ir.Val) register {
	if v.IsConst {
		return 0
	}
	return c.host(v.Reg)
}

// opnd returns an operand that reads v: an immediate (a constant that
// fits a sign-extended 32-bit immediate), a host register or a State slot.
// A wider constant is first loaded into scratch.
func (c *compiler) opnd(v ir.Val, scratch register) operand {
	switch {
	case v.IsConst && ir.FitsInt32(int64(v.Const)):
		return imm(int64(v.Const))
	case v.IsConst:
		c.a.op(xMOVQ, imm(int64(v.Const)), reg(scratch))
		return reg(scratch)
	case c.host(v.Reg) != 0:
		return reg(c.host(v.Reg))
	}
	return mem(rSt, regOff(v.Reg))
}

// load puts v into host register h.
func (c *compiler) load(v ir.Val, h register) {
	switch {
	case v.IsConst && v.Const == 0:
		c.a.op(xXORL, reg(h), reg(h))
	case v.IsConst:
		c.a.op(xMOVQ, imm(int64(v.Const)), reg(h))
	case c.host(v.Reg) == h:
	default:
		c.a.op(xMOVQ, c.opnd(v, h), reg(h))
	}
}

// store writes host register h to guest register r (a no-op for x0).
func (c *compiler) store(h register, r uint8) {
	if r == 0 || c.host(r) == h {
		return
	}
	c.a.op(xMOVQ, reg(h), c.opnd(ir.R(r), 0))
}

// storeConst writes the constant v to guest register r.
func (c *compiler) storeConst(v uint64, r uint8) {
	switch {
	case r == 0:
	case c.host(r) != 0:
		c.load(ir.C(v), c.host(r))
	case ir.FitsInt32(int64(v)):
		c.a.op(xMOVQ, imm(int64(v)), c.opnd(ir.R(r), 0))
	default:
		c.a.op(xMOVQ, imm(int64(v)), reg(rAX))
		c.store(rAX, r)
	}
}

// work returns the register to compute in.Dst's new value in: its own
// host register when that does not clobber b, still to be read; else AX.
func (c *compiler) work(in ir.Inst, b ir.Val) register {
	if h := c.host(in.Dst); h != 0 && !b.IsReg(in.Dst) {
		return h
	}
	return rAX
}

var aluRR = map[interp.Op]mnemonic{
	interp.OpADD: xADDQ, interp.OpSUB: xSUBQ, interp.OpXOR: xXORQ,
	interp.OpOR: xORQ, interp.OpAND: xANDQ, interp.OpMUL: xIMULQ,
	interp.OpADDW: xADDL, interp.OpSUBW: xSUBL, interp.OpMULW: xIMULL,
}

var commutative = map[interp.Op]bool{
	interp.OpADD: true, interp.OpXOR: true, interp.OpOR: true, interp.OpAND: true,
	interp.OpMUL: true, interp.OpADDW: true, interp.OpMULW: true,
}

var shifts = map[interp.Op]mnemonic{
	interp.OpSLL: xSHLQ, interp.OpSRL: xSHRQ, interp.OpSRA: xSARQ,
	interp.OpSLLW: xSHLL, interp.OpSRLW: xSHRL, interp.OpSRAW: xSARL,
}

var extends = map[interp.Op]mnemonic{
	ir.OpZext8: xMOVBQZX, ir.OpZext16: xMOVWQZX, ir.OpZext32: xMOVL,
	ir.OpSext8: xMOVBQSX, ir.OpSext16: xMOVWQSX, ir.OpSext32: xMOVLQSX,
}

var loads = map[interp.Op]mnemonic{
	interp.OpLB: xMOVBQSX, interp.OpLH: xMOVWQSX, interp.OpLW: xMOVLQSX, interp.OpLD: xMOVQ,
	interp.OpLBU: xMOVBQZX, interp.OpLHU: xMOVWQZX, interp.OpLWU: xMOVL,
}

// isW reports whether op produces a 32-bit result sign-extended to 64.
func isW(op interp.Op) bool {
	switch op {
	case interp.OpADDW, interp.OpSUBW, interp.OpMULW,
		interp.OpSLLW, interp.OpSRLW, interp.OpSRAW,
		interp.OpDIVW, interp.OpDIVUW, interp.OpREMW, interp.OpREMUW, ir.OpRorW:
		return true
	}
	return false
}

// Branch conditions: the jump taken when the RISC-V branch is taken, and
// the same with the operands swapped.
var (
	branchCond = map[interp.Op]cond{
		interp.OpBEQ: condEQ, interp.OpBNE: condNE, interp.OpBLT: condLT,
		interp.OpBGE: condGE, interp.OpBLTU: condB, interp.OpBGEU: condAE,
	}
	mirrored = map[interp.Op]cond{
		interp.OpBEQ: condEQ, interp.OpBNE: condNE, interp.OpBLT: condGT,
		interp.OpBGE: condLE, interp.OpBLTU: condA, interp.OpBGEU: condBE,
	}
)

// lowerInst lowers IR instruction i (anything but the end exit).
func (c *compiler) lowerInst(i int, in ir.Inst) {
	a := c.a
	if !c.keepsSnap(in) {
		c.snapLive = 0
	}
	switch op := in.Op; {
	case op == ir.OpMov:
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
	case ir.IsExt(op):
		if in.A.IsConst {
			c.storeConst(ir.Extend(op, in.A.Const), in.Dst)
			break
		}
		if op == ir.OpSext32 && c.sx.on && c.host(in.Dst) != 0 {
			// sext.w (addiw rd, rs, 0) is a W result: its low half is
			// the operand's, left stale like any W op's (finish32).
			if c.hostOf(in.A) != c.host(in.Dst) {
				a.op(xMOVL, c.opnd(in.A, 0), reg(c.host(in.Dst)))
			}
			c.sx.lazy = true
			break
		}
		w := c.work(in, ir.Val{})
		a.op(extends[op], c.opnd(in.A, 0), reg(w))
		c.store(w, in.Dst)
	case ir.IsALU(op):
		c.arith(in)
	case op == ir.OpShAdd:
		// Dst = A<<Scale + B + Off in one LEA (ir.ShAdd), from where
		// the operands live.
		idx, base := c.hostOf(in.A), c.hostOf(in.B)
		if idx == 0 {
			c.load(in.A, rCX)
			idx = rCX
		}
		if base == 0 {
			c.load(in.B, rDX)
			base = rDX
		}
		w := c.host(in.Dst)
		if w == 0 {
			w = rAX
		}
		a.op(xLEAQ, memScaled(base, idx, in.Scale, in.Off), reg(w))
		c.store(w, in.Dst)
	case ir.IsRot(op):
		// RORL (and RORX's word form) writes the rotated word
		// zero-extended: rorw's result is then finished like a W op's
		// (left stale, or extended).
		w := c.work(in, ir.Val{})
		ror, rorx, n := xRORQ, xRORXQ, int64(in.B.Const&63)
		if op == ir.OpRorW {
			ror, rorx, n = xRORL, xRORXL, int64(in.B.Const&31)
		}
		if c.bmi2 && !in.A.IsConst && in.A.Reg != 0 && c.hostOf(in.A) != w {
			a.op3(rorx, imm(n), c.opnd(in.A, rCX), reg(w)) // from where the source lives: no copy
		} else {
			c.load(in.A, w)
			a.op(ror, imm(n), reg(w))
		}
		if op == ir.OpRorW {
			c.finish32(in, w)
		}
		c.store(w, in.Dst)
	case ir.IsLoad(op):
		m := c.access(i, in, interp.AccR)
		if in.Dst == 0 {
			break // only the check matters
		}
		w := c.host(in.Dst)
		if w == 0 {
			w = rDX
		}
		a.op(loads[op], m, reg(w))
		c.store(w, in.Dst)
	case ir.IsStore(op):
		m := c.access(i, in, interp.AccW)
		v := in.B
		var src operand
		switch n := ir.Width(op); {
		case v.IsConst && n < 8: // the immediate of a narrow store is as wide as the store
			src = imm(int64(ir.Extend(map[int64]interp.Op{1: ir.OpSext8, 2: ir.OpSext16, 4: ir.OpSext32}[n], v.Const)))
		case v.IsConst && ir.FitsInt32(int64(v.Const)):
			src = imm(int64(v.Const))
		case c.hostOf(v) != 0:
			src = reg(c.hostOf(v))
		default:
			c.load(v, rDX)
			src = reg(rDX)
		}
		as := map[int64]mnemonic{1: xMOVB, 2: xMOVW, 4: xMOVL, 8: xMOVQ}[ir.Width(op)]
		a.op(as, src, m)
	case op == ir.OpCheck:
		// A table base's check (ir.CheckRange): the check access emits
		// for a widened check of [Lo, Hi], with no access after it.
		c.access(i, ir.Inst{A: in.A, Off: in.Cover.Lo, Cover: in.Cover, Exit: in.Exit, Stack: in.Stack, PC: in.PC}, interp.AccR)
	case ir.IsGuard(op):
		c.guard(i, in)
	case op == ir.OpSample && in.Native != nil:
		c.lowerNativeSample(i, in)
	case op == ir.OpSample:
		// The sampling decision (RPA sec. 3.4.2), before the instruction
		// (sampleDecision). The exit leaves with the guest state of the instruction's start;
		// the dispatcher runs it under the query engine, which
		// decrements the countdown to 0, samples and draws the next gap.
		c.sampleDecision(in, c.stubFor(in.Exit, i).stub)
	case op == interp.OpJALR:
		c.load(in.A, rAX)
		if in.Off != 0 {
			a.op(xADDQ, imm(in.Off), reg(rAX))
		}
		a.op(xANDQ, imm(-2), reg(rAX))
		a.op(xCMPQ, reg(rAX), imm(int64(in.B.Const)))
		e := c.stubFor(in.Exit, i)
		a.jcc(condNE, e.stub)
	case op == ir.OpFrm:
		c.lowerFrm(i, in)
	case ir.IsFloat(op):
		c.nanBefore(in)
		c.lowerFloat(i, in)
		c.nanAfter(in)
		c.boxAfter(in)
		c.numbersAfter(in)
	case ir.IsCSRRead(op) || ir.IsCSRWrite(op):
		c.lowerCSR(i, in)
	case ir.IsAtomic(op):
		c.lowerAtomic(i, in)
	default:
		panic("amd64: cannot lower " + in.String())
	}
}

// guard lowers "exit if op(A, B)".
func (c *compiler) guard(i int, in ir.Inst) {
	a := c.a
	e := c.stubFor(in.Exit, i)
	if exits, known := ir.GuardOutcome(in); known {
		if exits {
			a.jmp(e.stub)
		}
		return
	}
	cond := branchCond[in.Op]
	x, y := in.A, in.B
	var xo operand
	switch {
	case c.hostOf(x) != 0:
		xo = reg(c.hostOf(x))
	case c.hostOf(y) != 0 && (x.IsConst && ir.FitsInt32(int64(x.Const)) || !x.IsConst && x.Reg != 0):
		// 0 < y, or x living in State: compare y with x (an immediate
		// or x's slot) and mirror the condition, instead of loading x
		x, y = y, x
		xo = reg(c.hostOf(x))
		cond = mirrored[in.Op]
	default:
		c.load(x, rAX)
		xo = reg(rAX)
	}
	// Operands known to be sign-extended from 32 bits compare like their
	// low halves, signed and unsigned, so stale ones are compared in 32
	// bits (see sext.go).
	test, cmp := xTESTQ, xCMPQ
	if c.sx.rawStale {
		test, cmp = xTESTL, xCMPL
	}
	if y.IsConst && y.Const == 0 {
		a.op(test, xo, xo)
	} else {
		a.op(cmp, xo, c.opnd(y, rCX))
	}
	a.jcc(cond, e.stub)
}

// access computes the address of a load or store (need: interp.AccR or
// interp.AccW), checks it, and returns the memory operand. Guest memory
// has two fast intervals, [lo, lo+span1) (text, data, heap; lo is ReadLo
// or WriteLo) and [GuardHi, GuardHi+span2) (the stack), whose spans the
// interpreter keeps in the header before the guest memory (interp.Memory:
// they shrink and grow as the guest maps and protects pages), so the
// compare reads them there:
//
//	LEAQ off-lo1(base), CX ; CMPQ CX, span1(R14) ; JAE slow   ; the recorded interval
//	back: <the access>
//	...
//	slow: LEAQ off-lo2(base), CX ; CMPQ CX, span2(R14) ; JB back
//	      <the access table, page by page> ; JMP back, or to the exit
//
// so an access costs one compare when it hits the interval it hit while
// recording, two more jumps when it hits the other one (a pointer to a
// local where a heap pointer was recorded), and a look at the access
// table when it hits neither (a mapping the fast intervals do not reach:
// a shared library's data, memory above a hole). An address the table
// refuses leaves to the interpreter at this very instruction, which
// reports the fault. A constant address proven in bounds (no exit) needs
// no check.
//
// A widened check (ir.Cover) tests the start addresses base+Lo ..
// base+Hi at once: base+Hi-low below the span, and not below Hi-Lo (which
// would mean base+Lo wrapped below low):
//
//	LEAQ Hi-lo1(base), CX ; CMPQ CX, span1(R14) ; JAE slow ; CMPQ CX, $Hi-Lo ; JB slow
//
// An access whose check a widened one covers (no exit, a register base)
// is the bare access.
func (c *compiler) access(i int, in ir.Inst, need uint8) operand {
	a := c.a
	if in.Exit < 0 && in.A.IsConst {
		return mem(rMem, int64(in.A.Const+uint64(in.Off)))
	}
	env := c.env
	lo := env.ReadLo
	if need == interp.AccW {
		lo = env.WriteLo
	}
	// The check tests start addresses base+first .. base+first+span.
	first, span := in.Off, int64(0)
	if cv := in.Cover; cv.Widened() {
		first, span = cv.Lo, cv.Hi-cv.Lo
		if cv.Store {
			lo, need = env.WriteLo, interp.AccW
		}
	}
	heap, mapInterval := interp.IntervalRead, interp.IntervalMapRead
	if need == interp.AccW {
		heap, mapInterval = interp.IntervalWrite, interp.IntervalMapWrite
	}
	lows := [2]uint64{lo, env.GuardHi}
	intervals := [2]int{heap, interp.IntervalStack}
	stack := env.MemSize > env.GuardHi // there is a stack interval
	if in.Stack && stack {
		lows[0], lows[1] = lows[1], lows[0]
		intervals[0], intervals[1] = intervals[1], intervals[0]
	}
	fits := func(off int64) bool {
		return ir.FitsInt32(off) && ir.FitsInt32(off+span+7) && ir.FitsInt32(off+span-int64(lows[0])) && ir.FitsInt32(off+span-int64(lows[1])) &&
			ir.FitsInt32(off-int64(lows[0])) && ir.FitsInt32(off-int64(lows[1]))
	}
	base := c.hostOf(in.A)
	off := in.Off
	switch {
	case base != 0 && fits(off) && fits(first):
		// The offset goes into the checks' LEAs and the access's displacement.
	case base != 0:
		a.op(xLEAQ, mem(base, off), reg(rAX))
		base, first, off = rAX, first-off, 0
	case in.A.IsConst:
		c.load(ir.C(in.A.Const+uint64(off)), rAX)
		base, first, off = rAX, first-off, 0
	default:
		c.load(in.A, rAX)
		base = rAX
		if !fits(off) || !fits(first) {
			a.op(xADDQ, imm(off), reg(rAX))
			first, off = first-off, 0
		}
	}
	if in.Exit < 0 {
		return memIdx(rMem, base, off) // covered by an earlier check of this base value
	}
	e := c.stubFor(in.Exit, i)
	mapLo, _ := c.mapSpans(need)
	// The intervals, each a test that jumps to miss unless base+first ..
	// base+first+span lies in it: the heap's and the stack's with a fixed
	// low, the mappings' with a low read from the header (lowAt) too.
	// A range of start addresses whose width has a class
	// (interp.SpanClass) is one compare against the span less the
	// class's width; a wider one compares its end with the span (class
	// 0's word) and its end's distance from the low with its width.
	class, classed := interp.SpanClass(uint64(span))
	within := func(low uint64, lowAt int64, interval int) func(*label) {
		return func(miss *label) {
			end := span
			if classed {
				end = 0
			}
			a.op(xLEAQ, mem(base, first+end-int64(low)), reg(rCX))
			if lowAt != 0 {
				a.op(xSUBQ, mem(rMem, lowAt), reg(rCX))
			}
			if classed {
				a.op(xCMPQ, reg(rCX), mem(rMem, interp.ClassSpanOffset(env.MemSize, interval, class)))
				a.jcc(condAE, miss)
				return
			}
			a.op(xCMPQ, reg(rCX), mem(rMem, interp.ClassSpanOffset(env.MemSize, interval, 0)))
			a.jcc(condAE, miss)
			a.op(xCMPQ, reg(rCX), imm(span))
			a.jcc(condB, miss)
		}
	}
	tests := []func(*label){within(lows[0], 0, intervals[0])}
	if stack {
		tests = append(tests, within(lows[1], 0, intervals[1]))
	}
	tests = checkOrder(in, tests, within(0, mapLo, mapInterval))
	slow, back := &label{}, &label{}
	tests[0](slow)
	a.bind(back)
	c.cold = append(c.cold, func() {
		c.mark(in.PC)
		a.bind(slow)
		c.tryEach(tests[1:], back)
		c.countWalk()
		c.pageTest(base, first, first+span+7, need, e.stub)
		a.jmp(back)
	})
	return memIdx(rMem, base, off)
}

// checkOrder puts the mappings' interval test first when the access (or
// loop check) in was recorded there, else last after the fixed ones
// (already in the order in's Stack says).
func checkOrder(in ir.Inst, fixed []func(*label), mapped func(*label)) []func(*label) {
	if in.Mapped && !in.Stack {
		return append([]func(*label){mapped}, fixed...)
	}
	return append(fixed, mapped)
}

// countWalk adds one to the header's count of checks that no fast
// interval held (interp.Memory.TableWalks), on the cold path to the
// access table's walk. Checks that miss only their first interval are
// not counted: in some guests that path runs tens of millions of times.
func (c *compiler) countWalk() {
	c.a.op(xADDQ, imm(1), mem(rMem, interp.TableWalksOffset(c.env.MemSize)))
}

// tryEach emits tests one after the other, each jumping to ok when it
// passes and falling through to the next when it misses.
func (c *compiler) tryEach(tests []func(*label), ok *label) {
	for _, test := range tests {
		next := &label{}
		test(next)
		c.a.jmp(ok)
		c.a.bind(next)
	}
}

// mapSpans returns the header offsets of the mappings' interval for
// accesses that need need (see interp.MapSpanOffsets).
func (c *compiler) mapSpans(need uint8) (lo, span int64) {
	rl, rs, wl, ws := interp.MapSpanOffsets(c.env.MemSize)
	if need == interp.AccW {
		return wl, ws
	}
	return rl, rs
}

// pageTest jumps to fail unless every page of guest addresses
// [base+from, base+to] has access bit need in the access table (it uses
// CX and DX):
//
//	LEAQ from(base), CX ; LEAQ to(base), DX ; CMPQ CX, DX ; JA fail
//	SHRQ $12, CX ; SHRQ $12, DX ; CMPQ DX, $pages ; JAE fail
//	loop: TESTB $need, table(R14)(CX*1) ; JEQ fail ; ADDQ $1, CX ; CMPQ CX, DX ; JLS loop
func (c *compiler) pageTest(base register, from, to int64, need uint8, fail *label) {
	a := c.a
	a.op(xLEAQ, mem(base, from), reg(rCX))
	a.op(xLEAQ, mem(base, to), reg(rDX))
	c.pageLoop(need, fail)
}

// pageLoop is pageTest's loop over the pages of guest addresses [CX, DX].
func (c *compiler) pageLoop(need uint8, fail *label) {
	a := c.a
	a.op(xCMPQ, reg(rCX), reg(rDX))
	a.jcc(condA, fail)
	a.op(xSHRQ, imm(12), reg(rCX))
	a.op(xSHRQ, imm(12), reg(rDX))
	a.op(xCMPQ, reg(rDX), imm(int64(c.env.MemSize/4096)))
	a.jcc(condAE, fail)
	loop := &label{}
	a.bind(loop)
	a.op(xTESTB, imm(int64(need)), memIdx(rMem, rCX, interp.AccessTableOffset(c.env.MemSize)))
	a.jcc(condEQ, fail)
	a.op(xADDQ, imm(1), reg(rCX))
	a.op(xCMPQ, reg(rCX), reg(rDX))
	a.jcc(condBE, loop)
}

// lowerLoopChecks emits the checks a self-loop runs once on entry, before
// its first iteration (ir.CheckHoist), between the entry loads and the
// body the back edge jumps to. With a trip bound (ir.Trip: Reg steps by
// Step, a power of two, and the loop leaves at latest when Reg+Delta ==
// End), DX gets the last iteration K:
//
//	[MOVQ End, CX ; MOVLQSX CX, DX ; CMPQ CX, DX ; JNE exit] ; a 32-bit trip (ir.Trip.W):
//	                                                 ; End a sign-extended 32-bit value
//	MOVQ End, DX ; SUBQ Reg, DX ; SUBQ $Delta, DX   ; (Reg+Delta-End for Step < 0)
//	TESTQ $|Step|-1, DX ; JNE exit                  ; not a whole number of steps
//	SHRQ $log2|Step|, DX
//	MOVQ DX, CX ; SHRQ $31, CX ; JNE exit           ; K >= 2^31
//
// Each check of a base s stepping by c over offsets [lo, hi] then tests
// that [s+lo, s+lo+K*c+(hi-lo)] (or from s+lo+K*c, for c < 0) lies in the
// recorded interval [low, low+size):
//
//	MOVQ DX, AX ; SHLQ $log2|c|, AX     ; K*|c| (c = 0: MOVQ $hi-lo, AX instead)
//	MOVQ s, CX ; [ADDQ t, CX]           ; a derived base s+t (ir.Inst.Index)
//	[SUBQ AX, CX]                       ; the range starts at s+lo-K*|c| for c < 0
//	ADDQ $hi-lo, AX                     ; AX = the range's length
//	SUBQ $low-lo, CX ; ADDQ AX, CX ; JCS exit ; CMPQ CX, $size ; JAE exit
//
// Every quantity is below 2^48, so nothing overflows but a start below
// low, which the carry or the compare catches. A range outside the
// interval the accesses hit while recording is tried against the other
// one; outside both, the check leaves through its exit before the first
// instruction of the trace.
func (c *compiler) lowerLoopChecks() {
	f := c.f
	if len(f.Pre) == 0 {
		return
	}
	a := c.a
	env := c.env
	stubs := make([]*exitStub, len(f.Pre))
	for i, in := range f.Pre {
		stubs[i] = c.stubFor(in.Exit, 0)
	}
	if t := f.Trip; t.Step != 0 {
		fail := stubs[0].stub
		if t.W && !t.End.IsConst {
			// A trip of 32-bit arithmetic (ir.Trip.W) holds for an end
			// that is a sign-extended 32-bit value (a constant end is
			// one, ir.CheckHoist).
			c.load(t.End, rCX)
			a.op(xMOVLQSX, reg(rCX), reg(rDX))
			a.op(xCMPQ, reg(rCX), reg(rDX))
			a.jcc(condNE, fail)
		}
		sub := func(v ir.Val) {
			if v.IsConst && !ir.FitsInt32(int64(v.Const)) {
				c.load(v, rCX)
				a.op(xSUBQ, reg(rCX), reg(rDX))
				return
			}
			a.op(xSUBQ, c.opnd(v, rCX), reg(rDX))
		}
		delta := ir.C(uint64(t.Delta))
		if t.Step > 0 {
			c.load(t.End, rDX)
			sub(ir.R(t.Reg))
			sub(delta)
		} else {
			c.load(ir.R(t.Reg), rDX)
			sub(ir.C(uint64(-t.Delta)))
			sub(t.End)
		}
		m := t.Step
		if m < 0 {
			m = -m
		}
		if m > 1 {
			a.op(xTESTQ, imm(m-1), reg(rDX))
			a.jcc(condNE, fail)
			a.op(xSHRQ, imm(int64(bits.TrailingZeros64(uint64(m)))), reg(rDX))
		}
		a.op(xMOVQ, reg(rDX), reg(rCX))
		a.op(xSHRQ, imm(31), reg(rCX))
		a.jcc(condNE, fail)
	}
	rd, wr, st, _ := interp.SpanOffsets(env.MemSize)
	stack := env.MemSize > env.GuardHi // there is a stack interval
	for i, in := range f.Pre {
		switch in.Op {
		case ir.OpBoxCheck:
			c.boxCheck(uint32(in.Off), stubs[i].stub)
			continue
		case ir.OpFrm:
			c.frmCheck(stubs[i].stub, in.PC)
			continue
		}
		lo, spanOff, need := env.ReadLo, rd, interp.AccR
		if in.Cover.Store {
			lo, spanOff, need = env.WriteLo, wr, interp.AccW
		}
		lows := [2]uint64{lo, env.GuardHi}
		spans := [2]int64{spanOff, st}
		if in.Stack && stack {
			lows[0], lows[1], spans[0], spans[1] = lows[1], lows[0], spans[1], spans[0]
		}
		// The interval the accesses hit while recording first, then, in
		// cold code, the others (a loop over a stack buffer recorded over
		// a heap one), then the access table.
		tests := []func(*label){func(miss *label) { c.loopCheck(in, lows[0], spans[0], miss) }}
		if stack {
			tests = append(tests, func(miss *label) { c.loopCheck(in, lows[1], spans[1], miss) })
		}
		tests = checkOrder(in, tests, func(miss *label) { c.loopCheckMapped(in, need, miss) })
		ok, other := &label{}, &label{}
		tests[0](other)
		a.bind(ok)
		fail := stubs[i].stub
		c.cold = append(c.cold, func() {
			a.bind(other)
			c.tryEach(tests[1:], ok)
			c.countWalk()
			c.loopPages(in, need, fail)
			a.jmp(ok)
		})
	}
}

// loopCheck emits the range check of one OpLoopCheck against the interval
// [low, low+size), jumping to fail if the range is not inside it (DX
// holds the last iteration K when the base steps).
func (c *compiler) loopCheck(in ir.Inst, low uint64, spanOff int64, fail *label) {
	a := c.a
	c.loopRange(in)
	if d := int64(low) - in.Cover.Lo; ir.FitsInt32(d) {
		a.op(xSUBQ, imm(d), reg(rCX))
	} else {
		a.op(xSUBQ, imm(int64(low)), reg(rCX))
		a.op(xADDQ, imm(in.Cover.Lo), reg(rCX))
	}
	a.op(xADDQ, reg(rAX), reg(rCX))
	a.jcc(condB, fail)
	a.op(xCMPQ, reg(rCX), mem(rMem, spanOff))
	a.jcc(condAE, fail)
}

// loopCheckMapped is loopCheck against the mappings' interval, whose low
// is read from the header too.
func (c *compiler) loopCheckMapped(in ir.Inst, need uint8, fail *label) {
	a := c.a
	lo, spanOff := c.mapSpans(need)
	c.loopRange(in)
	if !ir.FitsInt32(in.Cover.Lo) { // (hoisted offsets are far smaller)
		a.jmp(fail)
		return
	}
	a.op(xADDQ, imm(in.Cover.Lo), reg(rCX))
	a.op(xSUBQ, mem(rMem, lo), reg(rCX))
	a.op(xADDQ, reg(rAX), reg(rCX))
	a.jcc(condB, fail)
	a.op(xCMPQ, reg(rCX), mem(rMem, spanOff))
	a.jcc(condAE, fail)
}

// loopRange leaves in AX the length of the range of start addresses a
// loop check covers and in CX its base (the range starts at CX+Lo), from
// the last iteration K in DX.
func (c *compiler) loopRange(in ir.Inst) {
	a := c.a
	span := in.Cover.Hi - in.Cover.Lo
	step := int64(in.B.Const)
	if step == 0 {
		a.op(xMOVQ, imm(span), reg(rAX))
		c.loopBase(in)
		return
	}
	m := step
	if m < 0 {
		m = -m
	}
	a.op(xMOVQ, reg(rDX), reg(rAX))
	a.op(xSHLQ, imm(int64(bits.TrailingZeros64(uint64(m)))), reg(rAX))
	c.loopBase(in)
	if step < 0 {
		a.op(xSUBQ, reg(rAX), reg(rCX))
	}
	if span != 0 {
		a.op(xADDQ, imm(span), reg(rAX))
	}
}

// loopBase puts a loop check's base in CX: its register's value, plus
// its second register's for a derived base (ir.Inst.Index), wrapping as
// the guest's add does.
func (c *compiler) loopBase(in ir.Inst) {
	c.load(in.A, rCX)
	if in.Index != 0 {
		c.a.op(xADDQ, c.opnd(ir.R(in.Index), 0), reg(rCX))
	}
}

// loopPages jumps to fail unless the access table allows every page of
// the range a loop check covers (when it lies in neither fast interval:
// a loop over a mapping the intervals do not reach). DX, the last
// iteration, is kept in the header's scratch word meanwhile.
func (c *compiler) loopPages(in ir.Inst, need uint8, fail *label) {
	a := c.a
	_, _, _, scratch := interp.SpanOffsets(c.env.MemSize)
	c.loopRange(in)
	a.op(xMOVQ, reg(rDX), mem(rMem, scratch))
	if ir.FitsInt32(in.Cover.Lo) && ir.FitsInt32(in.Cover.Lo+7) {
		a.op(xADDQ, imm(in.Cover.Lo), reg(rCX))
	} else {
		c.load(ir.C(uint64(in.Cover.Lo)), rDX)
		a.op(xADDQ, reg(rDX), reg(rCX))
	}
	a.op(xLEAQ, memIdx(rCX, rAX, 7), reg(rDX)) // the last byte the last access may touch
	c.pageLoop(need, fail)
	a.op(xMOVQ, mem(rMem, scratch), reg(rDX))
}
