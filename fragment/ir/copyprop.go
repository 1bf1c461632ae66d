// Copy propagation: a Func -> the same Func with reads of a copied register replaced by reads of its source.

package ir

// CopyProp replaces a read of register d, where d = mov s and neither d
// nor s has been redefined since, by a read of s. This shortens
// dependency chains and leaves the move for dce when d is overwritten
// before any exit needs it. The move itself stays: exits need d.
func CopyProp(f *Func) {
	var src [32]uint8 // src[d] = s while d is a copy of s, else 0
	subst := func(v Val) Val {
		if !v.IsConst && src[v.Reg] != 0 {
			return R(src[v.Reg])
		}
		return v
	}
	for i := range f.Insts {
		in := &f.Insts[i]
		in.A, in.B = subst(in.A), subst(in.B)
		d := in.Dst
		if d == 0 {
			continue
		}
		src[d] = 0
		for r := range src {
			if src[r] == d {
				src[r] = 0
			}
		}
		if in.Op == OpMov && !in.A.IsConst && in.A.Reg != d {
			src[d] = in.A.Reg
		}
	}
}
