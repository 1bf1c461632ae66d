// Dead code elimination: a Func -> the same Func without writes no exit or later read can observe.

package ir

// DCE removes instructions whose only effect is a register write nothing
// observes: the register is overwritten before any read of it and before
// any exit (every exit, including the end, needs the whole guest state,
// and an exit at the overwriting instruction itself leaves before the
// overwrite). It also removes moves of a register to itself. Stores,
// guards, jalrs and accesses that may fault are never removed.
//
// It scans backwards keeping the set of registers whose current value is
// still needed.
func DCE(f *Func) {
	const all = ^uint32(0)
	needed := all // the end exit needs everything
	keep := make([]bool, len(f.Insts))
	for i := len(f.Insts) - 1; i >= 0; i-- {
		in := &f.Insts[i]
		bit := uint32(1) << in.Dst
		if in.Op == OpMov && in.A.IsReg(in.Dst) {
			continue
		}
		if in.pure() && (in.Dst == 0 || needed&bit == 0) {
			continue
		}
		keep[i] = true
		if in.Dst != 0 {
			needed &^= bit
		}
		if in.Exit >= 0 || in.Op == OpExit {
			needed = all
		}
		in.Reads(func(r uint8) { needed |= 1 << r })
	}
	out := f.Insts[:0]
	for i, in := range f.Insts {
		if keep[i] {
			out = append(out, in)
		}
	}
	f.Insts = out
}
