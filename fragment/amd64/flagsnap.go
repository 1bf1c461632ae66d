// Lazy fflags: a read of fflags whose value only exits can see -> one STMXCSR into a State slot, decoded in the exit stubs.

package amd64

import (
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
// every exit stub computes its value from the slot, where State must
// be exact. An entry marks the slots empty, so an exit taken before the
// first read leaves the register's entry value.
//
// The value is the same as the read computes at once: the slot holds
// MXCSR as the read saw it, and State's fflags, the other half, cannot
// change before the exit, since the fragment writes neither fflags nor
// fcsr (and nothing else in native code touches State's flags).
type flagSnaps struct {
	slot map[int]int         // index of an OpCSRRead in Insts -> its slot
	reg  [MaxFlagSnaps]uint8 // the guest register of each slot
	n    int
	regs uint32 // bit r: guest register r is a slot's (kept in State)
}

// findFlagSnaps returns the reads of fflags in f that can be left to its
// exits: those whose destination register nothing else in f writes and
// nothing in f reads, in a fragment that writes neither fflags nor fcsr.
// At most MaxFlagSnaps; none when off.
func findFlagSnaps(f *ir.Func, on bool) flagSnaps {
	var s flagSnaps
	if !on {
		return s
	}
	var reads, writes [32]int
	count := func(in *ir.Inst) bool {
		if ir.IsCSRWrite(in.Op) && in.Off != interp.CSRFrm {
			return false
		}
		in.Reads(func(r uint8) { reads[r]++ })
		if in.Dst != 0 {
			writes[in.Dst]++
		}
		return true
	}
	for i := range f.Pre {
		if !count(&f.Pre[i]) {
			return s
		}
	}
	for i := range f.Insts {
		if !count(&f.Insts[i]) {
			return s
		}
	}
	for i, in := range f.Insts {
		if !ir.IsCSRRead(in.Op) || in.Off != interp.CSRFflags || in.Dst == 0 {
			continue
		}
		if r := in.Dst; reads[r] == 0 && writes[r] == 1 && s.n < MaxFlagSnaps {
			if s.slot == nil {
				s.slot = map[int]int{}
			}
			s.slot[i] = s.n
			s.reg[s.n] = r
			s.regs |= 1 << r
			s.n++
		}
	}
	return s
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

// flushSnaps stores, in an exit stub, the value of each read left to
// the exits into its register's State slot, unless its slot is still
// empty. AX is kept if keepAX (an indirect stub's target), through
// State's pc, which the stub writes later anyway; CX and DX are
// clobbered.
//
//	MOVL snap(R15), AX ; TESTL AX, AX ; JLT skip
//	(fflags from MXCSR in AX, into DX) ; MOVQ DX, X[r](R15)
//	skip:
func (c *compiler) flushSnaps(keepAX bool) {
	if c.snaps.n == 0 {
		return
	}
	a := c.a
	if keepAX {
		a.op(xMOVQ, reg(rAX), mem(rSt, StatePC))
	}
	for k := 0; k < c.snaps.n; k++ {
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
