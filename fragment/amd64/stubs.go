// Exit stubs: an IR exit -> the x86-64 code that writes back, charges the budget, and links or leaves.

package amd64

import (
	"math/bits"

	"rvdyn/fragment/exit"
	"rvdyn/fragment/ir"
)

// A Stub is one exit stub of a compiled fragment: the exit's record and
// the stub's fields the code cache patches.
type Stub struct {
	exit.Record
	// LinkOff is the offset in the code of the rel32 field of the stub's
	// link jump, which falls through to the dispatcher until the code
	// cache patches it to a fragment entry; -1 if the exit is never linked
	// (exit.Interp, exit.Indirect, or already bound inside the fragment).
	LinkOff int
	// IDOff is the offset in the code of the stub's 32-bit exit ID,
	// written by the code cache.
	IDOff int
}

// exitStub is an exit being emitted: its record and the label of its stub.
type exitStub struct {
	exit.Record
	at int // index of the IR instruction that takes it (for the write back)
	// stale are the registers whose upper half is stale when the exit is
	// taken (sext.go): extended before they are written back.
	stale uint32
	// nanDbl and nanSgl are the f registers that may hold a
	// non-canonical NaN when the exit is taken (lazynan.go):
	// canonicalized before they are written back.
	nanDbl, nanSgl uint32
	stub           *label
	linked         *label // for a self-loop back edge: where the link jump goes
	id             patchField
	link32         patchField // the link jump's rel32, if hasLink
	hasLink        bool
	// ExitIndirect: the jalr's link register and value.
	rd   uint8
	link uint64
	// back is the merged sampling decisions the stub gives back to the
	// countdown (merge.go); emitted is set once its code is.
	back    int64
	emitted bool
}

// stubFor creates the stub of IR exit e, taken by instruction at; its
// code is emitted after the body.
func (c *compiler) stubFor(e, at int) *exitStub {
	r := c.f.Exits[e]
	s := &exitStub{Record: r.Record, at: at, stub: &label{}, stale: c.sx.stale, nanDbl: c.fn.dbl, nanSgl: c.fn.sgl}
	if c.merge.fast {
		s.back = c.merge.after[at]
	}
	c.exits = append(c.exits, s)
	if r.Kind == exit.Indirect {
		s.rd, s.link = r.Link, r.LinkVal
	}
	if c.selfExits && selfExit(c.f, r) {
		s.linked = c.body
	}
	return s
}

// selfExit reports whether exit r of f goes back to f's own head as a
// back edge to the body (Options.NoSelfExits): a side exit to the head,
// as in the trace of a loop that recorded its last iteration, the common
// iteration then leaving. It jumps to the body with every register in
// place, like a self-loop's back edge, instead of a link through the
// write back and the linked entry. A fragment with loop checks on entry
// has none: they hold only for iterations along the recorded path.
func selfExit(f *ir.Func, r ir.Exit) bool {
	return r.Kind == exit.Branch && r.Target == f.Head && !r.Spec && r.Retired > 0 && !loopChecked(f)
}

// loopChecked reports whether f has OpLoopChecks on entry. (An
// OpBoxCheck holds for side exits to the head too: the body keeps the
// registers it checks boxed.)
func loopChecked(f *ir.Func) bool {
	for _, in := range f.Pre {
		if in.Op == ir.OpLoopCheck {
			return true
		}
	}
	return false
}

// writeBack stores the allocated guest registers that are dirty at exit
// e into State, sign-extending the stale ones first; resident home
// registers aside (see writeHomes). Dirty f registers too, the
// sampling countdown if a register holds it (regAlloc.cd), and the
// reads of fflags left to the exits (flushSnaps); last, where R12 holds
// a guest register (regAlloc.budgetReg), the budget back into R12.
func (c *compiler) writeBack(e *exitStub) {
	c.materialize(e)
	for _, r := range c.ra.dirty(e.at, c.loops) {
		if e.stale&(1<<r) != 0 {
			c.a.op(xMOVLQSX, reg(c.ra.host[r]), reg(c.ra.host[r]))
		}
		c.a.op(xMOVQ, reg(c.ra.host[r]), mem(rSt, regOff(r)))
	}
	for _, r := range c.fr.dirty(e.at, c.loops) {
		c.a.op(xMOVSD, reg(c.fr.host[r]), fslot(r))
	}
	switch {
	case c.ra.packed && !c.ra.cdHome:
		c.cdUnpack()
	case c.ra.cd != 0 && !c.ra.cdHome:
		c.a.op(xMOVQ, reg(c.ra.cd), mem(rSt, StateCountdown+8*c.ra.cdOff))
	}
	c.flushSnaps(e.at, e.Kind == exit.Indirect)
	if c.ra.budgetReg {
		c.a.op(xMOVQ, mem(rSt, StateBudget), reg(rBudget)) // the budget back where links expect it
	}
}

// materialize computes, on the way out through exit e, the results of the
// instructions sunk out of the body before it (ir.SinkToExits): a shift
// by a constant of a register whose value is the one the shift read
// (stale registers are extended by now, and a W shift reads the low half
// anyway), into AX, then into the register's State slot and its host
// register if it has one (a resident home, which the link and the
// write back of the homes read). Exits with e.at 0 (the entry's, the
// body's first instruction's) come before any: ir.Sunk.At is at least 1.
func (c *compiler) materialize(e *exitStub) {
	for _, s := range c.f.Sunk {
		if e.at < s.At {
			continue
		}
		in := s.Inst
		c.load(in.A, rAX)
		k := int64(in.B.Const & 63)
		if isW(in.Op) {
			k &= 31
		}
		c.a.op(shifts[in.Op], imm(k), reg(rAX))
		if isW(in.Op) {
			c.a.op(xMOVLQSX, reg(rAX), reg(rAX))
		}
		c.a.op(xMOVQ, reg(rAX), mem(rSt, regOff(in.Dst)))
		if h := c.ra.host[in.Dst]; h != 0 {
			c.a.op(xMOVQ, reg(rAX), reg(h))
		}
	}
}

// writeHomes stores the home registers (those of mask) into State, on
// the way out of native code: they hold values other fragments wrote too.
// So does a countdown home (regAlloc.cdHome).
func (c *compiler) writeHomes(e *exitStub, mask uint32) {
	switch {
	case c.ra.cdHome && c.ra.packed:
		c.cdUnpack()
	case c.ra.cdHome:
		c.a.op(xMOVQ, reg(c.ra.cd), mem(rSt, StateCountdown+8*c.ra.cdOff))
	}
	for r := uint8(1); r < 32; r++ {
		if mask&(1<<r) != 0 {
			if e.stale&(1<<r) != 0 {
				c.a.op(xMOVLQSX, reg(c.ra.home[r]), reg(c.ra.home[r]))
			}
			c.a.op(xMOVQ, reg(c.ra.home[r]), mem(rSt, regOff(r)))
		}
	}
}

// reloadHomes loads the home registers this fragment borrowed from
// State, before a link jump or an indirect branch lookup: the next
// fragment expects every home register in its home.
func (c *compiler) reloadHomes() {
	for r := uint8(1); r < 32; r++ {
		if c.ra.evicted&(1<<r) != 0 {
			c.a.op(xMOVQ, mem(rSt, regOff(r)), reg(c.ra.home[r]))
		}
	}
}

// emitStub emits an exit stub:
//
//	stub: MOVQ host, X[r](R15) ...     ; write back dirty guest registers
//	      MOVQ X[h](R15), home ...     ; reload the borrowed home registers
//	      SUBQ $retired, R12           ; charge the instructions (R12 = budget; $retired<<16 where it is packed, cdpack.go)
//	      JLE  out                     ; poll point: budget spent
//	      JMP  rel32                   ; link jump (0 = fall through)
//	out:  MOVQ home, X[h](R15) ...     ; write back every home register
//	      MOVL $id, Exit(R15)
//	      RET
//
// A stub that cannot be linked writes back the resident home registers
// and leaves. The back edge of a fragment that loops to its own head
// needs no write back: "SUBQ $retired, R12; JGT body" jumps past the
// entry loads, with every register in place, and falls into the
// write-back and out when the budget is spent.
func (c *compiler) emitStub(e *exitStub) {
	e.emitted = true
	if e.Kind == exit.Indirect {
		c.emitIndirectStub(e)
		return
	}
	a := c.a
	a.bind(e.stub)
	c.giveBack(e)
	// State, the loop head and the next fragment expect every register
	// sign-extended (sext.go), except the registers the loop body
	// redefines before anything can see their upper half: the back edge
	// extends those only on its way out.
	keep, fkeep := uint32(0), uint32(0)
	if e.linked != nil {
		keep = e.stale & c.redefined
		fkeep = c.fredefined | c.headNaN[0] | c.headNaN[1]
	}
	c.extendStale(e.stale &^ keep)
	if e.linked != nil {
		c.extensions += bits.OnesCount32(e.stale &^ keep)
	}
	e.stale = 0
	c.canonicalizeDirty(e, ^fkeep)
	out := &label{}
	linkable := e.linked == nil && e.Kind == exit.Branch
	switch {
	case e.linked != nil:
	case linkable:
		c.writeBack(e)
		c.reloadHomes()
	default:
		c.writeBack(e)
		c.writeHomes(e, c.ra.resident)
	}
	if e.Retired > 0 {
		budget := reg(rBudget)
		if e.linked != nil && c.ra.budgetReg {
			budget = mem(rSt, StateBudget) // R12 holds a guest register on the back edge
		}
		retired := int64(e.Retired)
		if c.ra.packed && (e.linked != nil || linkable && c.ra.cdHome) {
			retired <<= cdBits // R12 is still packed: on the back edge, and a home on the link
		}
		a.op(xSUBQ, imm(retired), budget)
		switch {
		case e.linked != nil:
			a.jcc(condGT, e.linked) // the back edge: loop while budget is left
		case linkable:
			a.jcc(condLE, out)
		}
	}
	if linkable {
		e.link32, e.hasLink = a.jmpPatchable(), true
	}
	a.bind(out)
	switch {
	case e.linked != nil:
		// The budget ran out on the back edge: write back before leaving.
		c.extendStale(keep)
		c.canonicalizeDirty(e, fkeep)
		c.writeBack(e)
		c.writeHomes(e, c.ra.resident)
	case linkable:
		c.writeHomes(e, c.ra.resident|c.ra.evicted)
	}
	e.id = a.movExitID(StateExit)
	a.op(xRET, none, none)
}
