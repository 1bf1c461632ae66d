// Rounding-mode check hoisting: a self-loop Func that never writes frm -> the same Func with its OpFrm run once, on entry.

package ir

import "rvdyn/interp"

// FrmHoist moves a self-loop's OpFrm into Func.Pre when nothing in the
// loop writes frm or fcsr: the host's rounding mode it installs then
// holds for every iteration, so the body need not test frm again (a load
// and a branch an iteration; and a loop run under rtz, rdn or rup no
// longer reloads MXCSR each time around). If frm holds a mode the host
// lacks, the fragment now leaves before its first instruction instead of
// before the first instruction that rounds by it: the interpreter runs
// the iteration either way.
//
// It runs after CheckHoist and BoxCheck: its exit comes after the other
// entry checks' exits, and the body's exits move up one. The OpFrm's own
// exit stays, taken by nothing.
func FrmHoist(f *Func) {
	if !f.Loops {
		return
	}
	at := -1
	for i := range f.Insts {
		in := &f.Insts[i]
		switch {
		case IsCSRWrite(in.Op) && (in.Off == interp.CSRFrm || in.Off == interp.CSRFcsr):
			return
		case in.Op == OpFrm && at < 0:
			at = i
		}
	}
	if at < 0 {
		return
	}
	f.Insts = append(f.Insts[:at], f.Insts[at+1:]...)
	f.addEntryCheck(Inst{Op: OpFrm})
}
