// Sinking into exits: a self-loop -> the same loop without the shifts whose results only its exits can see, which the exit stubs compute.

package ir

import (
	"rvdyn/fragment/exit"
	"rvdyn/interp"
)

// A Sunk is an instruction SinkToExits took out of a self-loop's body:
// every exit stub of an instruction at index At or later (in Func.Insts
// as it is after the pass) computes Inst's result into State before it
// writes back, from its operand's value there, which no instruction
// between changes. Exits before At (and the entry's) do not: the value
// is not yet written there, and none of them may be taken after the
// instruction in the same pass.
type Sunk struct {
	At   int
	Inst Inst
}

// SinkToExits moves out of a self-loop's body the shifts by a constant
// whose results no instruction reads and only exits can see: the halves
// of gcc's rotations, which Rotate no longer reads (SHA-256's rounds
// keep three, each a copy, a shift and a State store a pass, since dce
// must keep what an exit sees). Each exit stub after one computes it
// instead (Func.Sunk), off the loop's path. A shift qualifies when
//
//   - its register is written by no other instruction and read by none
//     (in the body and on entry), so the loop never needs its value;
//   - no exit comes before it in the body, so no exit of a later pass
//     sees the previous pass's value before this pass writes it;
//   - its source is not written again before the end (a W shift reads
//     the low half only, which a sign extension of the register in
//     place, sext.w r,r, keeps), so an exit stub finds the operand the
//     shift read;
//   - no exit after it is an indirect jump's (its stub writes a link
//     register and looks up the target, and computes nothing else), and
//     the loop samples nothing for the relational profiler (its records
//     may see any register).
//
// The instruction keeps its guest effect: at every exit the register
// holds what the interpreter would have (see the package invariants);
// only where it is computed moves.
func SinkToExits(f *Func) {
	if !f.Loops {
		return
	}
	var touched [32]int // instructions that name each register
	note := func(in *Inst) {
		for _, v := range [...]Val{in.A, in.B} {
			if !v.IsConst {
				touched[v.Reg]++
			}
		}
		touched[in.Dst]++
		touched[in.Index]++
	}
	for i := range f.Pre {
		note(&f.Pre[i])
	}
	for i := range f.Insts {
		in := &f.Insts[i]
		if in.Op == OpSample {
			return
		}
		note(in)
	}
	// Candidates come before the body's first exit (and after its first
	// instruction); most loops have none, and are left without a copy.
	var sinks []int
	for i, in := range f.Insts {
		if in.Exit >= 0 || in.Op == OpExit {
			break
		}
		if i > 0 && sinkable(in, touched[in.Dst]) && sourceKept(f, i) {
			sinks = append(sinks, i)
		}
	}
	if len(sinks) == 0 {
		return
	}
	out := make([]Inst, 0, len(f.Insts)-len(sinks))
	for i, in := range f.Insts {
		if len(sinks) > 0 && sinks[0] == i {
			sinks = sinks[1:]
			f.Sunk = append(f.Sunk, Sunk{At: len(out), Inst: in})
			continue
		}
		out = append(out, in)
	}
	f.Insts = out
}

// sinkable reports whether in is a shift by a constant whose register
// no other instruction names (touched counts the instructions naming it,
// in itself included).
func sinkable(in Inst, touched int) bool {
	switch in.Op {
	case interp.OpSLL, interp.OpSRL, interp.OpSRA, interp.OpSLLW, interp.OpSRLW, interp.OpSRAW:
	default:
		return false
	}
	return in.Exit < 0 && in.Dst != 0 && in.B.IsConst && !in.A.IsConst && in.A.Reg != 0 &&
		in.A.Reg != in.Dst && touched == 1
}

// sourceKept reports whether the source of f.Insts[i] keeps the value the
// shift reads up to the end of the body, and no exit after it is an
// indirect one.
func sourceKept(f *Func, i int) bool {
	in := f.Insts[i]
	w := in.Op == interp.OpSLLW || in.Op == interp.OpSRLW || in.Op == interp.OpSRAW
	src := in.A.Reg
	for _, later := range f.Insts[i+1:] {
		if later.Exit >= 0 && f.Exits[later.Exit].Kind == exit.Indirect {
			return false
		}
		if later.Dst == src && !(w && later.Op == OpSext32 && later.A.IsReg(src)) {
			return false
		}
	}
	return true
}
