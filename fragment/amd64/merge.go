// Merged sampling decisions: a body with k decisions on its register countdown -> one test of k at its top, a copy of the body with the k decisions for the passes a sample falls in, and exits that give back the decisions not reached.

package amd64

import "rvdyn/fragment/ir"

// The sampling decision of every selected instruction (RPA sec. 3.4.2:
// the countdown says how many more selected executions until the next
// sample, 1 meaning this one) is a SUBQ of the countdown register and a
// branch, an integer micro-op pair per selected instruction: in the
// RV64IM soft-float loops that branch every few instructions (libgcc's
// __clzdi2, two selected branches in five instructions) they were a
// quarter of the run (spectral at 1/8192, where almost nothing is
// sampled: +22%).
//
// A pass through the body from its top makes the same decisions in
// the same order until it leaves, so when the countdown exceeds the
// number k of decisions on its register, none of them samples and the
// pass may subtract k at once:
//
//	body:      SUBQ $k, cd ; JLE slowEntry      ; no decision samples in this pass
//	           the body without those decisions
//	           end stub (the back edge jumps to body)
//	slowEntry: ADDQ $k, cd                       ; one does: the decisions as they were
//	           the body with its decisions
//	           end stub
//
// An exit of the first copy taken before m of the k decisions gives the
// countdown back k-m (a LEAQ at the top of its stub, which leaves the
// flags alone), so that every exit leaves the countdown where the
// decisions one by one would have. The second copy runs in about k of
// every N passes at period N: it is the code the fragment had before,
// lowered again from the body's top state, with its own stubs. A
// countdown in State (Options.CountdownHome off and a fragment that does
// not loop), decisions on another countdown, and a body with a bulk
// part (bulk.go, which charges the countdown itself) are left as they
// were, and so is a body with fewer than two decisions, for which the
// test costs what the decision did.
//
// This is ours, not the paper's: its hardware decides for free (sec.
// 3.4.2's countdown is a register of the profiling unit).
type decisionMerge struct {
	on bool
	k  int64 // decisions merged per pass
	// after[i] is the number of merged decisions at indices of f.Insts
	// greater than i: what an exit taken by instruction i gives back.
	after  []int64
	merged []bool // merged[i]: f.Insts[i] is a merged OpSample
	// fast is set while the first copy (the decisions merged) is lowered.
	fast bool
}

// mergeDecisions returns the decisions of f that can be merged (see
// decisionMerge); off when on is false, when the fragment keeps no
// countdown in a register, or when fewer than two decide on it.
func (c *compiler) mergeDecisions(on bool) decisionMerge {
	f := c.f
	if !on || c.ra.cd == 0 {
		return decisionMerge{}
	}
	d := decisionMerge{after: make([]int64, len(f.Insts)), merged: make([]bool, len(f.Insts))}
	for i := len(f.Insts) - 1; i >= 0; i-- {
		d.after[i] = d.k
		if in := f.Insts[i]; in.Op == ir.OpSample && in.Off == c.ra.cdOff {
			d.merged[i] = true
			d.k++
		}
	}
	d.on = d.k >= 2 && (!c.ra.packed || fits8(d.k)) // a packed countdown's SUBW takes an imm8
	return d
}

// bodyState is the compiler's state along the body, saved at its top so
// that the second copy is lowered from where the first started.
type bodyState struct {
	sx       sextState
	fn       nanState
	boxed    uint32
	numbers  [2]uint32
	snapLive int
}

func (c *compiler) saveBody() bodyState {
	return bodyState{c.sx, c.fn, c.boxed, c.numbers, c.snapLive}
}

func (c *compiler) restoreBody(s bodyState) {
	c.sx, c.fn, c.boxed, c.numbers, c.snapLive = s.sx, s.fn, s.boxed, s.numbers, s.snapLive
}

// mergedTest emits the first copy's test at the body's top: subtract k
// from the countdown, and go to slowEntry when one of the pass's
// decisions would sample.
func (c *compiler) mergedTest(slowEntry *label) {
	if c.ra.packed {
		// The low 16 bits, unsigned: at most k left (or the
		// countdown's excess to take, cdZeroed) goes the slow way.
		c.a.op(xSUBW, imm(c.merge.k), reg(rBudget))
		c.a.jcc(condBE, slowEntry)
		return
	}
	c.a.op(xSUBQ, imm(c.merge.k), reg(c.ra.cd))
	c.a.jcc(condLE, slowEntry)
}

// giveBack emits, at the top of exit stub e, the countdown's return of
// the merged decisions e's pass did not reach (exitStub.back).
func (c *compiler) giveBack(e *exitStub) {
	switch {
	case e.back > 0 && c.ra.packed:
		c.a.op(xLEAW, mem(rBudget, e.back), reg(rBudget)) // the low 16 bits alone, flags untouched
	case e.back > 0:
		c.a.op(xLEAQ, mem(c.ra.cd, e.back), reg(c.ra.cd))
	}
}
