// NaN-box entry checks: a Func -> the same Func with one OpBoxCheck in Pre for the f registers it reads as singles before it writes them.

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
	if mask := boxCheckMask(f); mask != 0 {
		f.addEntryCheck(Inst{Op: OpBoxCheck, Off: int64(mask)})
	}
}

// BoxCheckLine gives a fragment that does not loop the same entry check
// as BoxCheck: the singles it reads before writing them (and writes only
// with singles) are tested once on entry instead of at each such read
// (five instructions, and a NaN path out of line, each; an FFT's
// butterfly reads its twiddle factor and a loop-invariant negation so).
// The registers stay boxed to the end, so a side exit to the head that
// jumps back to the body skips nothing it needs (amd64's self-exits).
// Unlike a loop's, the check may fail where the path does not read the
// register (it reads it after a side exit that the entry's values take,
// say a register holding a double there): its exit is an entry test
// (exit.Record.EntryTest), which a dispatcher answers by compiling the
// head again without it if it keeps failing.
func BoxCheckLine(f *Func) {
	if f.Loops {
		return
	}
	if mask := boxCheckMask(f); mask != 0 {
		f.addEntryCheck(Inst{Op: OpBoxCheck, Off: int64(mask)})
		f.Exits[f.Pre[len(f.Pre)-1].Exit].EntryTest = true
	}
}

// boxCheckMask returns the f registers f reads as singles before writing
// them and writes, if at all, only with single results.
func boxCheckMask(f *Func) uint32 {
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
	return exposed &^ other
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
