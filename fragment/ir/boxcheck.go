// NaN-box entry checks: a self-loop Func -> the same Func with one OpBoxCheck in Pre for the f registers it reads as singles before it writes them.

package ir

import (
	"rvdyn/fragment/exit"
	"rvdyn/interp"
)

// BoxCheck gives a self-loop one entry check, run before the first
// iteration, that the f registers it reads as singles before writing them
// hold NaN-boxed singles; it covers those the loop writes only with
// single results (or not at all), so that they hold boxed singles at the
// head of every iteration and native code need not test their boxes in
// the body (an f register the body read unboxed would read as the
// canonical NaN there). Loop-invariant singles (a constant factor, a
// divisor) and single accumulators are what it finds. If the check fails
// the fragment leaves before its first instruction, as a failed
// OpLoopCheck does, and the interpreter runs the iteration.
//
// It runs after CheckHoist, which puts its loop checks' exits first: the
// box check's exit comes after theirs, and the body's exits move up one.
func BoxCheck(f *Func) {
	if !f.Loops {
		return
	}
	var written, exposed, other uint32
	for i := range f.Insts {
		in := &f.Insts[i]
		if !IsFloat(in.Op) {
			continue
		}
		d, a, b, c := FloatUses(in.Op)
		if readsSingles(in.Op) {
			for _, r := range [...]struct {
				use bool
				reg uint8
			}{{a, in.F.A}, {b, in.F.B}, {c, in.F.C}} {
				if r.use && written&(1<<r.reg) == 0 {
					exposed |= 1 << r.reg
				}
			}
		}
		if d {
			written |= 1 << in.F.D
			if !SingleResult(in.Op) {
				other |= 1 << in.F.D
			}
		}
	}
	mask := exposed &^ other
	if mask == 0 {
		return
	}
	f.addEntryCheck(Inst{Op: OpBoxCheck, Off: int64(mask)})
}

// addEntryCheck appends check to Pre with an exit of its own, which
// leaves to the interpreter before the first instruction. Pre's exits
// come first in trace order (CheckHoist numbers its loop checks' 0 ..
// len(Pre)-1), so the new one takes the next number and the body's exits
// move up one.
func (f *Func) addEntryCheck(check Inst) {
	k := len(f.Pre)
	f.Exits = append(f.Exits[:k], append([]Exit{{Record: exit.Record{Kind: exit.Interp, Target: f.Head, From: f.Head}}}, f.Exits[k:]...)...)
	for i := range f.Insts {
		if f.Insts[i].Exit >= k {
			f.Insts[i].Exit++
		}
	}
	check.PC, check.Exit = f.Head, k
	f.Pre = append(f.Pre, check)
}

// readsSingles reports whether op reads its f operands as NaN-boxed
// singles: an operand whose upper half is not all ones reads as the
// canonical NaN. fsw and fmv.x.w move the low 32 bits as they are.
func readsSingles(op interp.Op) bool {
	switch {
	case op >= interp.OpFMADDS && op <= interp.OpFCVTLUS:
		return true
	case op >= interp.OpFEQS && op <= interp.OpFCLASSS, op == interp.OpFCVTDS:
		return true
	}
	return false
}

// SingleResult reports whether op writes a single to an f register. Every
// such result is NaN-boxed: the ISA has every F instruction box what it
// writes.
func SingleResult(op interp.Op) bool {
	switch {
	case op == interp.OpFLW, op == interp.OpFCVTSD:
		return true
	case op >= interp.OpFMADDS && op <= interp.OpFMAXS:
		return true
	case op >= interp.OpFCVTSW && op <= interp.OpFMVWX:
		return true
	}
	return false
}
