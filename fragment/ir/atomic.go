// Atomics in the IR: lr, sc and the AMOs -> IR instructions with the interpreter exit their alignment and bounds checks take.

package ir

import (
	"rvdyn/fragment/exit"
	"rvdyn/interp"
)

// IsAtomic reports whether op is an atomic memory operation (lr, sc or
// an AMO, .w or .d): Dst = the value read (sc: 0 on success, 1 on
// failure), the address in A, the source in B. It carries an interpreter
// exit, taken before it when the address is misaligned (the interpreter
// reports the fault) or outside the intervals a load and a store may
// access.
//
// Fragments run them as plain read-modify-write sequences: guests are
// single-threaded (rvdyn runs no clone), so nothing can come between the
// read and the write. With threads this is the place to revisit (a
// LOCK-prefixed instruction per AMO, lr/sc over CMPXCHG). lr's reservation
// is interp.CPU.Resv, which the interpreter shares.
func IsAtomic(op interp.Op) bool { return op >= interp.OpLRW && op <= interp.OpAMOMAXUD }

// AtomicWidth returns the access size of an atomic op in bytes.
func AtomicWidth(op interp.Op) int64 {
	if op >= interp.OpLRD {
		return 8
	}
	return 4
}

// lowerAtomic appends the IR of atomic instruction in (x prefilled).
func (f *Func) lowerAtomic(x Inst, in interp.Inst) {
	x.Op, x.Dst, x.A, x.B = in.Op, in.Rd, R(in.Rs1), R(in.Rs2)
	if in.Op == interp.OpLRW || in.Op == interp.OpLRD {
		x.B = Val{}
	}
	x.Exit = f.newExit(exit.Interp, x.PC, x.PC, x.Step)
	f.Insts = append(f.Insts, x)
}
