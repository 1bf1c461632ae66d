// Value specialization: a Func and a value profile -> the same Func with each near-invariant load followed by a guard on its value.

package ir

import (
	"rvdyn/fragment/exit"
	"rvdyn/interp"
)

// A ValueOracle answers, for the load at guest pc, whether the value
// profile shows it (nearly) always loading one value, and which. It is
// what a value profile offers the fragment compiler: the stratified
// sampling paper's case study (Sastry, Bodik and Smith, sec. 1: value
// profiles "for value reuse optimizations (software-directed instruction
// reuse and program specialization)"; "value-invariance profiles lead to
// program specialization") made concrete in a dynamic optimizer. The
// value is the one the load leaves in its register (after sign or zero
// extension). Implementations must be safe to call from the goroutine
// that compiles.
type ValueOracle interface {
	Invariant(pc uint64) (value uint64, ok bool)
}

// Specialize follows each load whose pc the oracle reports invariant by a
// guard "exit if dst != value" whose exit continues at the next
// instruction after the load retired (exit.Branch to the next pc, Retired Step+1):
// when the value differs, the guest's state is exactly the interpreter's
// after the load, and it goes on from there. Constant folding (which runs
// after it) learns from the guard that dst holds the value on the
// fragment's main path and propagates it: address arithmetic, compares,
// shifts and divisions by the value fold, and bounds checks of constant
// addresses go. Loads into x0 and loads whose value is not used before
// the register is redefined gain nothing and are left alone.
//
// It returns the number of guards inserted. The exits are renumbered so
// that they stay in trace order (Verify's invariant).
func Specialize(f *Func, vals ValueOracle) int {
	if vals == nil {
		return 0
	}
	type guard struct {
		after int // index in f.Insts of the load
		value uint64
	}
	var guards []guard
	for i := range f.Insts {
		in := &f.Insts[i]
		if !IsLoad(in.Op) || in.Dst == 0 || !usedBeforeRedefined(f, i) {
			continue
		}
		if v, ok := vals.Invariant(in.PC); ok {
			guards = append(guards, guard{i, v})
		}
	}
	if len(guards) == 0 {
		return 0
	}
	insts := make([]Inst, 0, len(f.Insts)+len(guards))
	exits := make([]Exit, 0, len(f.Exits)+len(guards))
	remap := make([]int, len(f.Exits))
	// move copies exit e of the old numbering into the new list.
	move := func(e int) int {
		if e < 0 {
			return e
		}
		exits = append(exits, f.Exits[e])
		remap[e] = len(exits) - 1
		return len(exits) - 1
	}
	g := 0
	for i, in := range f.Insts {
		in.Exit = move(in.Exit)
		insts = append(insts, in)
		if g < len(guards) && guards[g].after == i {
			exits = append(exits, Exit{Record: exit.Record{Kind: exit.Branch, Target: in.PC + uint64(in.Len), From: in.PC, Retired: in.Step + 1, Spec: true}})
			insts = append(insts, Inst{Op: interp.OpBNE, A: R(in.Dst), B: C(guards[g].value), Exit: len(exits) - 1, PC: in.PC, Step: in.Step})
			g++
		}
	}
	f.Insts, f.Exits = insts, exits
	return len(guards)
}

// usedBeforeRedefined reports whether the register load i writes is read
// by a later instruction before it is written again (or is live at the
// end of a looping fragment, whose next iteration may read it).
func usedBeforeRedefined(f *Func, i int) bool {
	r := f.Insts[i].Dst
	for _, in := range f.Insts[i+1:] {
		used := false
		in.Reads(func(x uint8) { used = used || x == r })
		if used {
			return true
		}
		if in.Dst == r {
			return false
		}
	}
	return false
}
