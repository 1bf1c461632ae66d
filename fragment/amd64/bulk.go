// Bulk byte loops: a self-loop that only fills or copies memory a byte at a time -> REP STOSB or REP MOVSB for all its iterations but the last, then the loop itself.

package amd64

import (
	"math/bits"

	"rvdyn/fragment/ir"
	"rvdyn/interp"
)

// minBulk is the fewest iterations worth a string instruction: REP STOSB
// and REP MOVSB take tens of cycles to start.
const minBulk = 16

// A bulkLoop is a self-loop recognized as a byte fill or a byte copy, the
// shape of a C library's byte-at-a-time memset and memcpy (picolibc's,
// built for size, which every guest linked against it runs):
//
//	fill:  sb V, 0(D)                 copy:  T = lb/lbu 0(S) ; sb T, 0(D)
//	       N = add N, -1                     N = add N, -1
//	       D = add D, 1                      D = add D, 1 ; S = add S, 1
//	       exit if beq N, 0                  exit if beq N, 0
//
// (the additions in any order), or glibc's, which count to an end
// pointer (the loop's ir.Trip) instead of down to zero: its memcpy and
// memmove copy the bytes before and after their word loops, and memset
// fills whole words, with
//
//	copy:  T = lbu 0(S)               fill:  sd V, 0(D)
//	       S = add S, 1                      D = add D, 8
//	       D = add X, S                      exit if beq D, E
//	       sb T, 0(D)
//	       exit if beq E, S
//
// (X the distance from source to destination, less one), with no other
// instruction and no other exit: the accesses' checks were hoisted to the
// entry (CheckHoist), which proved every iteration's address in bounds
// before the loop runs. The one exception is the relational profiler's
// sampling decision of the guard (OpSample, right before it), whose exit
// is the sample.
type bulkLoop struct {
	copy    bool   // a copy (REP MOVSB), else a fill (REP STOSB, or REP STOSQ for words)
	word    bool   // a fill of 8-byte words (REP STOSQ)
	n       uint8  // the count, stepping by -1; 0: the trip bounds the loop (ir.Trip)
	dst     uint8  // the destination pointer, stepping by +1 (+8 for words); 0: derived
	src     uint8  // a copy's source pointer, stepping by +1
	dstBase uint8  // dst == 0: the destination is dstBase + src + dstOff at the head
	dstOff  int64  //
	val     ir.Val // a fill's byte (its low 8 bits) or word
	perIter int64  // guest instructions one iteration retires
	// sample is the relational profiler's sampling decision of the
	// guard (an OpSample before it), nil if the profiler does not select
	// the branch: the iterations done in bulk are then only those the
	// countdown lets go unsampled.
	sample *ir.Inst
}

// kind names the loop for Code.Bulk: "fill" or "copy" (picolibc's
// shapes), "fill to end", "word fill to end" or "copy to end" (glibc's).
func (b *bulkLoop) kind() string {
	k := "fill"
	switch {
	case b.copy:
		k = "copy"
	case b.word:
		k = "word fill"
	}
	if b.n == 0 {
		k += " to end"
	}
	return k
}

// matchBulk returns f's self-loop as a bulkLoop, or nil if it is not one.
func matchBulk(f *ir.Func) *bulkLoop {
	if !f.Loops || len(f.Pre) == 0 || len(f.Insts) < 4 {
		return nil
	}
	body := f.Insts[:len(f.Insts)-1]
	end := f.Insts[len(f.Insts)-1]
	if end.Op != ir.OpExit || end.Exit < 0 {
		return nil
	}
	b := &bulkLoop{perIter: int64(f.Exits[end.Exit].Retired)}
	if k := len(body) - 2; k >= 0 && body[k].Op == ir.OpSample && body[k].PC == body[k+1].PC {
		s := body[k]
		b.sample = &s
		body = append(body[:k:k], body[k+1])
	}
	if b.perIter <= 0 || b.perIter > 8 { // lowerBulk divides the budget by 8
		return nil
	}
	if t, g := f.Trip, body[len(body)-1]; t.Step > 0 && !t.W && g.Exit >= 0 && ir.IsGuard(g.Op) {
		if m := matchToEnd(b, body, t); m != nil {
			return m
		}
	}
	i := 0
	if in := body[0]; (in.Op == interp.OpLB || in.Op == interp.OpLBU) && unchecked(in) && in.Dst != 0 {
		b.copy, b.src = true, in.A.Reg
		i++
	}
	st := body[i]
	if st.Op != interp.OpSB || !unchecked(st) {
		return nil
	}
	b.dst, b.val = st.A.Reg, st.B
	if b.copy && !st.B.IsReg(body[0].Dst) {
		return nil
	}
	i++
	// The additions (N, D and a copy's S), then the guard.
	adds := 2
	if b.copy {
		adds = 3
	}
	if len(body) != i+adds+1 {
		return nil
	}
	steps := map[uint8]int64{}
	for _, in := range body[i : len(body)-1] {
		if in.Op != interp.OpADD || in.Dst == 0 || !in.A.IsReg(in.Dst) || !in.B.IsConst {
			return nil
		}
		if _, dup := steps[in.Dst]; dup {
			return nil
		}
		steps[in.Dst] = int64(in.B.Const)
	}
	g := body[len(body)-1]
	if g.Op != interp.OpBEQ || g.A.IsConst || !g.B.IsConst || g.B.Const != 0 || g.Exit < 0 {
		return nil
	}
	b.n = g.A.Reg
	if steps[b.n] != -1 || steps[b.dst] != 1 || (b.copy && steps[b.src] != 1) {
		return nil
	}
	// The registers must be distinct, and a fill's byte must not be one of
	// them (it would change as the loop runs).
	regs := []uint8{b.n, b.dst}
	if b.copy {
		regs = append(regs, b.src, body[0].Dst)
	} else if !b.val.IsConst {
		regs = append(regs, b.val.Reg)
	}
	if !distinct(regs...) {
		return nil
	}
	return b
}

// distinct reports whether no two of regs are the same register.
func distinct(regs ...uint8) bool {
	for x := range regs {
		for y := x + 1; y < len(regs); y++ {
			if regs[x] == regs[y] {
				return false
			}
		}
	}
	return true
}

// unchecked reports whether access in needs no check of its own (the
// entry's loop checks cover it) and has the shape the string
// instructions handle: no offset, a register base.
func unchecked(in ir.Inst) bool {
	return in.Exit < 0 && in.Off == 0 && !in.A.IsConst && !in.Cover.Widened()
}

// matchToEnd matches glibc's loops that run to an end pointer (the trip
// t, whose guard ends body): the byte copy to a destination at a fixed
// distance from the source, and the fill of words.
func matchToEnd(b *bulkLoop, body []ir.Inst, t ir.Trip) *bulkLoop {
	if !ir.FitsInt32(t.Delta) {
		return nil
	}
	step := func(in ir.Inst, r uint8, k uint64) bool {
		return in.Op == interp.OpADD && in.Dst == r && in.A.IsReg(r) && in.B.IsConst && in.B.Const == k
	}
	switch len(body) {
	case 3: // sd V, 0(D) ; D = add D, 8 ; guard
		st := body[0]
		d := st.A.Reg
		if st.Op != interp.OpSD || !unchecked(st) || !step(body[1], d, 8) || t.Reg != d || t.Step != 8 || st.B.IsReg(d) {
			return nil
		}
		b.word, b.dst, b.val = true, d, st.B
		return b
	case 5: // T = lbu 0(S) ; S = add S, 1 ; D = add X, S ; sb T, 0(D) ; guard
		ld, add, st := body[0], body[2], body[3]
		src, tmp, dst := ld.A.Reg, ld.Dst, add.Dst
		if ld.Op != interp.OpLBU && ld.Op != interp.OpLB || !unchecked(ld) || tmp == 0 || !step(body[1], src, 1) || t.Reg != src || t.Step != 1 {
			return nil
		}
		x := add.A
		if x.IsReg(src) {
			x = add.B
		}
		if add.Op != interp.OpADD || x.IsConst || !(add.A.IsReg(src) || add.B.IsReg(src)) || x.IsReg(src) {
			return nil
		}
		if st.Op != interp.OpSB || !unchecked(st) || !st.A.IsReg(dst) || !st.B.IsReg(tmp) {
			return nil
		}
		if !distinct(src, tmp, dst, x.Reg) {
			return nil
		}
		b.copy, b.src, b.dstBase, b.dstOff = true, src, x.Reg, 1
		return b
	}
	return nil
}

// lowerBulk emits, once per entry (after the entry's loop checks, before
// the loop's first iteration), the work of k iterations of b at once,
// where k = min(N-1, (budget-1)/8), and at most countdown-1 when the
// profiler samples the guard (the countdown then drops by k): k never reaches N, so the loop still
// runs its last iteration and leaves through its own guard, and the
// budget left stays positive, so the loop's poll point and budget exit
// are reached as before. After it N, D (and S) and the budget hold what
// k iterations leave; the bytes are written by REP STOSB (the byte V) or
// copied by REP MOVSB, forward, one byte after another as the loop does
// (an overlapping copy repeats bytes exactly as the loop would: the
// string instructions are defined as that sequence); a copy's loaded
// register T is written by the next iteration before any exit can see
// it. Fewer than minBulk iterations are left to the loop. The entry's
// checks proved every iteration's addresses in bounds, so nothing here
// can fault.
//
// DI (and for a copy SI) are host registers the allocator hands out: they
// are saved in DX (and AX) for the string instruction and restored after
// it, and a guest register living in one of them is updated in its saved
// copy.
func (c *compiler) lowerBulk(b *bulkLoop) {
	a := c.a
	skip, small := &label{}, &label{}
	// CX = min(N-1, (budget-1)>>3), signed: a negative count skips.
	if b.n != 0 {
		c.load(ir.R(b.n), rCX)
		a.op(xSUBQ, imm(1), reg(rCX))
	} else {
		c.tripLast(rCX)
	}
	a.op(xMOVQ, reg(rBudget), reg(rAX))
	if c.ra.packed {
		a.op(xSARQ, imm(cdBits+3), reg(rAX)) // R12 = (budget-1)<<16 | lo
	} else {
		a.op(xSUBQ, imm(1), reg(rAX))
		a.op(xSARQ, imm(3), reg(rAX))
	}
	a.op(xCMPQ, reg(rCX), reg(rAX))
	a.jcc(condLE, small)
	a.op(xMOVQ, reg(rAX), reg(rCX))
	a.bind(small)
	if b.sample != nil {
		// Each iteration runs the guard's sampling decision once: at
		// most countdown-1 of them go unsampled, CX = min(CX,
		// countdown-1) (RPA sec. 3.4.2's countdown; the loop itself
		// runs the sampled one).
		fewer := &label{}
		if cd := c.countdown(b.sample.Off); packedIn(cd) {
			// lo alone: at most the countdown, whose excess the
			// loop's own decisions take (cdZeroed).
			a.op(xMOVWQZX, reg(rBudget), reg(rAX))
		} else {
			a.op(xMOVQ, cd, reg(rAX))
		}
		a.op(xSUBQ, imm(1), reg(rAX))
		a.op(xCMPQ, reg(rCX), reg(rAX))
		a.jcc(condLE, fewer)
		a.op(xMOVQ, reg(rAX), reg(rCX))
		a.bind(fewer)
	}
	a.op(xCMPQ, reg(rCX), imm(minBulk))
	a.jcc(condLT, skip)
	a.op(xMOVQ, imm(b.perIter), reg(rAX))
	a.op(xIMULQ, reg(rCX), reg(rAX))
	if c.ra.packed {
		a.op(xSHLQ, imm(cdBits), reg(rAX))
	}
	a.op(xSUBQ, reg(rAX), reg(rBudget))
	if !b.copy {
		c.load(b.val, rAX) // AL: the byte
	}
	// saved: where the value of host register h is while the string
	// instruction uses it.
	saved := func(h register) register {
		switch {
		case h == rDI:
			return rDX
		case h == rSI && b.copy:
			return rAX
		}
		return h
	}
	a.op(xMOVQ, reg(rDI), reg(rDX))
	if b.copy {
		a.op(xMOVQ, reg(rSI), reg(rAX))
	}
	// pointer sets host register to the host address of guest pointer r.
	pointer := func(r uint8, to register) {
		if h := c.host(r); h != 0 {
			a.op(xLEAQ, memIdx(rMem, saved(h), 0), reg(to))
			return
		}
		a.op(xMOVQ, mem(rSt, regOff(r)), reg(to))
		a.op(xADDQ, reg(rMem), reg(to))
	}
	// advance adds (op: ADDQ or SUBQ) the count to guest register r.
	advance := func(op mnemonic, r uint8) {
		if h := c.host(r); h != 0 {
			a.op(op, reg(rCX), reg(saved(h)))
			return
		}
		a.op(op, reg(rCX), mem(rSt, regOff(r)))
	}
	if b.dst != 0 {
		pointer(b.dst, rDI)
	} else {
		// glibc's copy: the destination is dstBase+src+dstOff.
		val := func(r uint8) operand {
			if h := c.host(r); h != 0 {
				return reg(saved(h))
			}
			return mem(rSt, regOff(r))
		}
		a.op(xMOVQ, val(b.dstBase), reg(rDI))
		a.op(xADDQ, val(b.src), reg(rDI))
		a.op(xLEAQ, memIdx(rMem, rDI, b.dstOff), reg(rDI))
	}
	if b.copy {
		pointer(b.src, rSI)
		advance(xADDQ, b.src)
	}
	if b.dst != 0 && !b.word {
		advance(xADDQ, b.dst)
	}
	if b.n != 0 {
		advance(xSUBQ, b.n)
	}
	if b.sample != nil {
		if cd := c.countdown(b.sample.Off); packedIn(cd) {
			a.op(xSUBW, reg(rCX), reg(rBudget)) // CX < lo: no borrow into the budget
		} else {
			a.op(xSUBQ, reg(rCX), cd)
		}
	}
	a.op(xREP, none, none)
	switch {
	case b.copy:
		a.op(xMOVSB, none, none)
		a.op(xMOVQ, reg(rAX), reg(rSI))
	case b.word:
		a.op(xSTOSQ, none, none)
		// D = the host address the fill reached less the guest's base
		// (CX, spent, holds it for a D in State).
		to := rCX
		if h := c.host(b.dst); h != 0 {
			to = saved(h)
		}
		a.op(xMOVQ, reg(rDI), reg(to))
		a.op(xSUBQ, reg(rMem), reg(to))
		if c.host(b.dst) == 0 {
			a.op(xMOVQ, reg(rCX), mem(rSt, regOff(b.dst)))
		}
	default:
		a.op(xSTOSB, none, none)
	}
	a.op(xMOVQ, reg(rDX), reg(rDI))
	a.bind(skip)
}

// tripLast puts into h the index K of a self-loop's last iteration by its
// trip (ir.Trip, a positive step): (End-Reg-Delta)/Step. The entry's
// loop checks (lowerLoopChecks) have left already if that is not a whole
// number of steps or not below 2^31.
func (c *compiler) tripLast(h register) {
	a, t := c.a, c.f.Trip
	c.load(t.End, h)
	a.op(xSUBQ, c.opnd(ir.R(t.Reg), rAX), reg(h))
	if t.Delta != 0 {
		a.op(xSUBQ, imm(t.Delta), reg(h))
	}
	if k := bits.TrailingZeros64(uint64(t.Step)); k > 0 {
		a.op(xSHRQ, imm(int64(k)), reg(h))
	}
}
