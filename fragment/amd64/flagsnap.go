// Lazy fflags: a read of fflags whose value only exits can see -> one STMXCSR into a State slot, decoded in the exit stubs; a write of fflags that restores such a read -> one LDMXCSR from the slot.

package amd64

import (
	"slices"

	"rvdyn/fragment/ir"
	"rvdyn/interp"
)

// MaxFlagSnaps is how many reads of fflags one fragment may leave to its
// exits (the slots of fragment.State.FlagSnaps).
const MaxFlagSnaps = 4

// flagSnaps are the reads of fflags a fragment leaves to its exits.
//
// GCC's quiet compares (isless and its kind, and the NaN test of every
// sqrt call under -fmath-errno) read fflags into a register, compare,
// and write the register back to fflags; ir.QuietCompare removes the
// write, and what is left is a register that holds fflags and that
// nothing in the fragment reads. Reading fflags costs STMXCSR, a load of
// what it stored and a dozen instructions to map the flags (fflagsInto),
// and the load of a value STMXCSR just stored waits for the store to
// reach the cache: in RV64GC nbody's inner loop it was 40% of the
// loop's samples. Here the read is a lone STMXCSR into a slot of its
// own; the register lives in State (never in a host register), and
// every exit stub where the read is the register's last write computes
// its value from the slot, where State must be exact (where a later
// write is, State holds that write's value). An entry marks the slots
// empty, so an exit taken before the first read leaves the register's
// entry value.
//
// The value is the same as the read computes at once: the slot holds
// MXCSR as the read saw it, and State's fflags, the other half, cannot
// change before the exit, since the fragment writes neither fflags nor
// fcsr (and nothing else in native code touches State's flags).
type flagSnaps struct {
	slot map[int]int         // index of an OpCSRRead in Insts -> its slot
	reg  [MaxFlagSnaps]uint8 // the guest register of each slot
	at   [MaxFlagSnaps]int   // the index of each slot's read in Insts
	n    int
	regs uint32 // bit r: guest register r is a slot's (kept in State)
	// writes holds, for each register of a slot, the indexes in Insts
	// of the instructions that write it, in order; loops is f.Loops.
	writes map[uint8][]int
	loops  bool
	// restore maps the index of a write of fflags that restores what a
	// read left to the exits read (the read's register, nothing between
	// them touching a CSR) to that read's slot: it loads MXCSR back from
	// the slot.
	restore map[int]int
}

// findFlagSnaps returns the reads of fflags in f that can be left to its
// exits: those whose register nothing in f reads while it holds what
// the read wrote, but a write of fflags that restores it, in a fragment
// that writes neither fflags nor fcsr otherwise. The register may be
// written again (gcc reuses the register of sqrt's saved flags): an exit
// computes it from the slot only where the read is the register's last
// write before the exit (lastWrite). At most MaxFlagSnaps; none when
// off.
//
// The restoring write is glibc's way to undo the flags of a computation
// that must raise none (floor, ceil, trunc and round convert with a
// static rounding mode, which raises inexact): "frflags a ; ... ; fsflags
// a", with branches and floating point between, where
// ir.QuietCompare's idiom has compares alone. Read and write each cost a
// dozen instructions and a load that waits for STMXCSR's store (nine
// tenths of the RV64GC ray guest's floor); left to the exits, the read
// is one STMXCSR into its slot and the write one LDMXCSR from it. Exact
// as long as nothing between them writes a CSR (MXCSR's rounding control
// is then what the slot holds) and nothing else in the fragment writes
// fflags or fcsr (State's flags, the other half of fflags, stay as the
// read saw them); an exit between them sees the flags raised since,
// as the guest would. If a write that looks like a restore does not get
// its read's slot, no read is left to the exits.
func findFlagSnaps(f *ir.Func, on bool) flagSnaps {
	var s flagSnaps
	if !on || !slices.ContainsFunc(f.Insts, isFflagsRead) {
		return s // most fragments: nothing to find, nothing to allocate
	}
	restores := restoringWrites(f)
	for i := range f.Pre {
		if ir.IsCSRWrite(f.Pre[i].Op) && f.Pre[i].Off != interp.CSRFrm {
			return s
		}
	}
	writes := map[uint8][]int{}
	linked := uint32(0) // registers a jalr writes: its exit leaves after the write
	for i, in := range f.Insts {
		if ir.IsCSRWrite(in.Op) && in.Off != interp.CSRFrm && restores[i] < 0 {
			return s
		}
		if in.Dst != 0 {
			writes[in.Dst] = append(writes[in.Dst], i)
			if in.Op == interp.OpJALR {
				linked |= 1 << in.Dst
			}
		}
	}
	restored := map[int]int{} // a read's index -> the index of the write that restores it
	for w, r := range restores {
		if r >= 0 {
			restored[r] = w
		}
	}
	// A candidate is a read of fflags whose register no jalr writes (an
	// exit of any other instruction leaves before it writes, so the
	// write before it is the register's value there); a read of the
	// register whose last write is a candidate (the restore aside) rules
	// the candidate out.
	candidate := map[int]bool{}
	for i, in := range f.Insts {
		if isFflagsRead(in) && linked&(1<<in.Dst) == 0 {
			candidate[i] = true
		}
	}
	for _, in := range f.Pre {
		in.Reads(func(r uint8) {
			for i := range candidate {
				if f.Insts[i].Dst == r {
					delete(candidate, i) // the loop checks read it before any iteration
				}
			}
		})
	}
	for p, in := range f.Insts {
		in.Reads(func(r uint8) {
			if w := lastWrite(writes[r], p, f.Loops); w >= 0 && candidate[w] && restores[p] != w {
				delete(candidate, w)
			}
		})
	}
	for i, in := range f.Insts {
		if !candidate[i] || s.n == MaxFlagSnaps {
			continue
		}
		r := in.Dst
		if s.slot == nil {
			s.slot, s.restore, s.writes = map[int]int{}, map[int]int{}, map[uint8][]int{}
		}
		s.slot[i] = s.n
		if w, ok := restored[i]; ok {
			s.restore[w] = s.n
		}
		s.reg[s.n], s.at[s.n] = r, i
		s.regs |= 1 << r
		s.writes[r] = writes[r]
		s.n++
	}
	s.loops = f.Loops
	for w, r := range restores {
		if _, ok := s.restore[w]; r >= 0 && !ok {
			return flagSnaps{} // a write of fflags lowered as one: State's flags change
		}
	}
	return s
}

// isFflagsRead reports whether in reads fflags into a register.
func isFflagsRead(in ir.Inst) bool {
	return ir.IsCSRRead(in.Op) && in.Off == interp.CSRFflags && in.Dst != 0
}

// lastWrite returns the last of the sorted instruction indexes ws before
// index p: in a loop, the last of all when none is before p (the write of
// the iteration before), or -1.
func lastWrite(ws []int, p int, loops bool) int {
	last := -1
	for _, w := range ws {
		if w >= p {
			break
		}
		last = w
	}
	if last < 0 && loops && len(ws) > 0 && p >= 0 {
		last = ws[len(ws)-1]
	}
	return last
}

// restoringWrites returns, for each instruction of f, the index of the
// read of fflags it restores, or -1: a write of fflags (its old value
// not kept) of the register a read of fflags wrote, with no CSR access
// and no other write of that register between them.
func restoringWrites(f *ir.Func) []int {
	out := make([]int, len(f.Insts))
	last := -1 // the latest read of fflags since the latest other CSR access
	for i, in := range f.Insts {
		out[i] = -1
		switch {
		case ir.IsCSRWrite(in.Op):
			if last >= 0 && in.Off == interp.CSRFflags && in.Dst == 0 && !in.A.IsConst && in.A.Reg == f.Insts[last].Dst {
				out[i] = last
			}
			last = -1
		case ir.IsCSRRead(in.Op):
			last = -1
			if in.Off == interp.CSRFflags && in.Dst != 0 {
				last = i
			}
		case last >= 0 && in.Dst == f.Insts[last].Dst:
			last = -1
		}
	}
	return out
}

// snapOff returns the State offset of flag snapshot slot k.
func snapOff(k int) int64 { return StateFlagSnaps + 4*int64(k) }

// emptySnaps marks every slot empty, on entry.
func (c *compiler) emptySnaps() {
	for k := 0; k < c.snaps.n; k++ {
		c.a.op(xMOVL, imm(-1), mem(rSt, snapOff(k)))
	}
}

// lowerSnap lowers the read of fflags at slot k: MXCSR into the slot.
func (c *compiler) lowerSnap(k int) {
	c.a.op(xSTMXCSR, none, mem(rSt, snapOff(k)))
}

// lowerRestore lowers the write of fflags that restores the read at slot
// k (flagSnaps.restore): MXCSR back from the slot.
func (c *compiler) lowerRestore(k int) {
	c.a.op(xLDMXCSR, mem(rSt, snapOff(k)), none)
}

// flushSnaps stores, in an exit stub, the value of each read left to
// the exits into its register's State slot, unless its slot is still
// empty. AX is kept if keepAX (an indirect stub's target), through
// State's pc, which the stub writes later anyway; CX and DX are
// clobbered.
//
//	MOVL snap(R15), AX ; TESTL AX, AX ; JLT skip
//	(fflags from MXCSR in AX, into DX) ; MOVQ DX, X[r](R15)
//	skip:
func (c *compiler) flushSnaps(at int, keepAX bool) {
	if c.snaps.n == 0 {
		return
	}
	a := c.a
	if keepAX {
		a.op(xMOVQ, reg(rAX), mem(rSt, StatePC))
	}
	for k := 0; k < c.snaps.n; k++ {
		if lastWrite(c.snaps.writes[c.snaps.reg[k]], at, c.snaps.loops) != c.snaps.at[k] {
			continue // the register holds a later write's value, in State
		}
		skip := &label{}
		a.op(xMOVL, mem(rSt, snapOff(k)), reg(rAX))
		a.op(xTESTL, reg(rAX), reg(rAX))
		a.jcc(condLT, skip)
		c.fflagsFromAX()
		a.op(xMOVQ, reg(rDX), mem(rSt, regOff(c.snaps.reg[k])))
		a.bind(skip)
	}
	if keepAX {
		a.op(xMOVQ, mem(rSt, StatePC), reg(rAX))
	}
}

// keepsSnap reports whether lowering in leaves MXCSR as a read left to
// the exits saw it (c.snapLive stays): integer work that cannot leave,
// and the quiet compares of ir.QuietCompare, which restore it
// themselves (restoreOnNaN).
func (c *compiler) keepsSnap(in ir.Inst) bool {
	op := in.Op
	return in.F.Quiet || in.Exit < 0 && (op == ir.OpMov || ir.IsExt(op) || ir.IsRot(op) || ir.IsALU(op) || op == ir.OpShAdd)
}

// restoreOnNaN follows a quiet compare's host compare, right after it,
// when the read of fflags before it is in slot k (c.snapLive): a compare
// of a NaN (the parity flag set) raised invalid, which the guest's write
// of what it read (the idiom's fsflags, which ir.QuietCompare removed)
// would have undone, so MXCSR is loaded back from the slot, out of line
// (LDMXCSR and the jumps leave the compare's flags for the SETcc after
// it). This replaces the tests of both operands' bits before the compare
// (quietTest), nine instructions on the path every compare takes, by one
// jump:
//
//	JP nan ; back: ...
//	nan: LDMXCSR snap(R15) ; JMP back
//
// Exact since nothing between the read and the compare changes MXCSR
// (keepsSnap): the slot holds MXCSR as it was before the compare, rounding
// control included.
func (c *compiler) restoreOnNaN(k int, pc uint64) {
	c.outOfLine(condPS, pc, func(*label) { c.a.op(xLDMXCSR, mem(rSt, snapOff(k)), none) })
}
