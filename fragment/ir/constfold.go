// Constant propagation and folding: a Func -> the same Func with known register values replaced by constants and computed at compile time.

package ir

import "rvdyn/interp"

// ConstFold propagates constants forward along the trace. A register is
// known from its definition by a constant until it is redefined; the
// trace is one straight line, so no merging is needed, and a looping
// fragment re-enters at the top where nothing is known. It
//
//   - replaces reads of known registers by constants (lui+addi address
//     materialization becomes one constant);
//   - folds ALU ops and extensions of constants into a move of the result
//     (interp.ALU is the semantics, so they cannot disagree);
//   - applies identities that make a move (x+0, x|0, x^0, x<<0, x&-1,
//     x*1) or a constant (x&0, x*0, x-x, x^x);
//   - deletes guards whose outcome is known never to exit, and jalrs whose
//     target is known to be the recorded one;
//   - drops the bounds check of a load or store whose address is a
//     constant in bounds: the access then uses a direct displacement.
func ConstFold(f *Func) {
	var known [32]bool
	var val [32]uint64
	subst := func(v Val) Val {
		if !v.IsConst && known[v.Reg] {
			return C(val[v.Reg])
		}
		return v
	}
	out := f.Insts[:0]
	for _, in := range f.Insts {
		in.A, in.B = subst(in.A), subst(in.B)
		switch op := in.Op; {
		case IsALU(op):
			in = foldALU(in)
		case IsExt(op):
			if in.A.IsConst {
				in.Op, in.A = OpMov, C(Extend(op, in.A.Const))
			}
		case IsRot(op):
			if in.A.IsConst {
				in.Op, in.A, in.B = OpMov, C(Rotated(op, in.A.Const, in.B.Const)), Val{}
			}
		case IsGuard(op):
			if exits, ok := GuardOutcome(in); ok && !exits {
				continue
			}
		case IsLoad(op) || IsStore(op):
			lo := f.env.ReadLo
			if IsStore(op) {
				lo = f.env.WriteLo
			}
			if in.A.IsConst && in.Exit >= 0 && inBounds(in.A.Const+uint64(in.Off), lo, f.env) {
				in.Exit = -1
			}
		case op == interp.OpJALR:
			if in.A.IsConst && (in.A.Const+uint64(in.Off))&^1 == in.B.Const {
				continue // the recorded target, which is aligned
			}
		}
		if in.Dst != 0 {
			known[in.Dst] = in.Op == OpMov && in.A.IsConst
			val[in.Dst] = in.A.Const
		}
		out = append(out, in)
		if in.Op == interp.OpBNE && in.A.IsConst != in.B.IsConst {
			r, k := in.A, in.B
			if r.IsConst {
				r, k = k, r
			}
			known[r.Reg], val[r.Reg] = true, k.Const
		}
	}
	f.Insts = out
}

// foldALU folds an ALU op whose result is known or is a copy.
func foldALU(in Inst) Inst {
	a, b := in.A, in.B
	mov := func(v Val) Inst { in.Op, in.A, in.B = OpMov, v, Val{}; return in }
	if a.IsConst && b.IsConst {
		r, _ := interp.ALU(in.Op, a.Const, b.Const)
		return mov(C(r))
	}
	same := !a.IsConst && !b.IsConst && a.Reg == b.Reg
	switch in.Op {
	case interp.OpSUB, interp.OpXOR:
		if same {
			return mov(C(0))
		}
	}
	if a.IsConst { // put the constant second where the op commutes
		switch in.Op {
		case interp.OpADD, interp.OpOR, interp.OpXOR, interp.OpAND, interp.OpMUL:
			a, b = b, a
			in.A, in.B = a, b
		}
	}
	if !b.IsConst {
		return in
	}
	switch k := b.Const; in.Op {
	case interp.OpADD, interp.OpSUB, interp.OpOR, interp.OpXOR, interp.OpSLL, interp.OpSRL, interp.OpSRA:
		if k == 0 {
			return mov(a)
		}
	case interp.OpAND:
		switch k {
		case 0:
			return mov(C(0))
		case ^uint64(0):
			return mov(a)
		}
	case interp.OpMUL:
		switch k {
		case 0:
			return mov(C(0))
		case 1:
			return mov(a)
		}
	}
	return in
}

// GuardOutcome reports whether a guard exits, when that is known at
// compile time.
func GuardOutcome(in Inst) (exits, known bool) {
	a, b := in.A, in.B
	switch {
	case a.IsConst && b.IsConst:
		return interp.BranchTaken(in.Op, a.Const, b.Const), true
	case !a.IsConst && !b.IsConst && a.Reg == b.Reg:
		return interp.BranchTaken(in.Op, 0, 0), true
	case in.Op == interp.OpBLTU && b.IsConst && b.Const == 0:
		return false, true // nothing is below 0
	case in.Op == interp.OpBGEU && b.IsConst && b.Const == 0:
		return true, true
	}
	return false, false
}

// Extend computes an extension pseudo op, or the value a load op leaves in
// its register when memory holds the low bytes of v.
func Extend(op interp.Op, v uint64) uint64 {
	switch op {
	case OpZext8, interp.OpLBU:
		return uint64(uint8(v))
	case OpZext16, interp.OpLHU:
		return uint64(uint16(v))
	case OpZext32, interp.OpLWU:
		return uint64(uint32(v))
	case OpSext8, interp.OpLB:
		return uint64(int64(int8(v)))
	case OpSext16, interp.OpLH:
		return uint64(int64(int16(v)))
	case OpSext32, interp.OpLW:
		return uint64(int64(int32(v)))
	}
	return v
}
