// The frflags / compare / fsflags idiom: a Func -> the same Func with the compares quiet and the write that restores the flags gone.

package ir

import "rvdyn/interp"

// QuietCompare finds the idiom GCC emits for a comparison that must not
// raise the invalid flag (isless and its kind, and the NaN tests of
// glibc's sqrt and floor), a read of fflags, compares, and a write of
// what was read:
//
//	frflags a ; flt.d / fle.d / feq.d ... ; fsflags a
//
// Where nothing between the read and the write can leave the fragment,
// write a or touch the flags otherwise (only integer work and compares),
// the write restores exactly the flags the read saw. QuietCompare then
// marks the compares quiet (FloatArgs.Quiet: a NaN operand gives 0 with
// no flag raised, tested on the bits before the host compares) and
// removes the write: native code no longer loads MXCSR (LDMXCSR, the
// idiom's costly part) for it. The read stays, since a holds fflags for
// whatever reads it later. The RV64GC ray guest's hottest loop has the
// idiom in every iteration.
//
// A quiet compare that repeats an earlier compare (the same op on the
// same f registers, neither written since, nor the earlier result)
// becomes a copy of that result: the values are equal, NaN operands
// included, and the quiet one raises no flag. GCC emits this pair for
// "if (x < 0) ...; sqrt(x)": the branch's signaling flt, then the
// quiet one that decides whether sqrt sets errno.
func QuietCompare(f *Func) {
	for i := 0; i < len(f.Insts); i++ {
		r := f.Insts[i]
		if !IsCSRRead(r.Op) || r.Off != interp.CSRFflags || r.Dst == 0 {
			continue
		}
		saved := r.Dst
		var cmps []int
		w := -1
	scan:
		for j := i + 1; j < len(f.Insts); j++ {
			in := &f.Insts[j]
			switch {
			case IsCSRWrite(in.Op):
				w = j
				break scan
			case in.Exit >= 0 || in.Op == OpExit:
				break scan // leaving between the two: the flags must be the compares'
			case isFloatCompare(in.Op):
				cmps = append(cmps, j)
			case !in.pure():
				break scan // a store, a float op, another CSR access, ...
			}
			if in.Dst == saved {
				break scan
			}
		}
		if w < 0 || len(cmps) == 0 {
			continue
		}
		if wr := f.Insts[w]; wr.Off != interp.CSRFflags || wr.Dst != 0 || !wr.A.IsReg(saved) {
			continue
		}
		for _, k := range cmps {
			f.Insts[k].F.Quiet = true
			reuseCompare(f, k)
		}
		f.Insts = append(f.Insts[:w], f.Insts[w+1:]...)
	}
}

// isFloatCompare reports whether op is flt, fle or feq, single or double.
func isFloatCompare(op interp.Op) bool {
	switch op {
	case interp.OpFLTD, interp.OpFLED, interp.OpFEQD, interp.OpFLTS, interp.OpFLES, interp.OpFEQS:
		return true
	}
	return false
}

// reuseCompare makes quiet compare k a copy of the result of the
// nearest earlier compare by the same op of the same f registers, if
// nothing between writes those f registers or that result.
func reuseCompare(f *Func, k int) {
	q := f.Insts[k]
	if q.Dst == 0 {
		return
	}
	var xw, fw uint32 // x and f registers written between
	for j := k - 1; j >= 0; j-- {
		in := &f.Insts[j]
		if in.Op == q.Op && in.F.A == q.F.A && in.F.B == q.F.B && in.Dst != 0 &&
			xw&(1<<in.Dst) == 0 && fw&(1<<q.F.A|1<<q.F.B) == 0 {
			f.Insts[k].Op, f.Insts[k].A, f.Insts[k].B, f.Insts[k].F = OpMov, R(in.Dst), Val{}, FloatArgs{}
			return
		}
		if in.Dst != 0 {
			xw |= 1 << in.Dst
		}
		if d, _, _, _ := FloatUses(in.Op); d && IsFloat(in.Op) {
			fw |= 1 << in.F.D
		}
	}
}
