// Scaled-index folding: a Func -> the same Func with RV64's shift-and-add address arithmetic computed by one shadd (an x86-64 LEA).

package ir

import "rvdyn/interp"

// ShAdd folds the index arithmetic RV64 without Zba spells out into one
// instruction that x86-64 computes with a single LEA:
//
//	slli t,x,k ; add d,t,b          -> d = shadd x<<k, b       (k = 1..3)
//	addi x,y,c ; ... ; d = shadd x<<k, b -> d = shadd y<<k, b, c<<k
//	addi b,y,c ; ... ; d = shadd x<<k, b -> d = shadd x<<k, y, c
//
// gcc emits the first for every array element and table entry (a[i] is
// "slli a5,a5,2 ; add a5,a5,a4 ; lw a5,0(a5)"), the second for a table
// that starts at a constant index (crc32's slicing-by-8 reads
// table[k][i] as "addi a7,a4,768 ; slli a7,a7,2 ; add a7,a7,a6"). Where
// x86-64 could address [b + x*4 + c] in one instruction, the trace
// shifts, adds and then loads: each fold removes one instruction from
// the chain that computes the address, and frees the register the
// intermediate value lived in.
//
// Unlike Strength and Rotate, which leave the instruction they bypass to
// DCE, a fold here consumes it: the shift (or the addition of c) is
// usually done in place ("slli a5,a5,2" overwrites the x it reads), so
// no register holds x any more where the add reads the shifted value.
// The folded instruction, at i, becomes a move of its register to
// itself (which DCE drops), and the consumer, at j, computes from x's
// value instead. That is exact only if nothing can see the register t
// that instruction i wrote while it is skipped:
//
//   - between i and j no instruction reads t, none can leave the
//     fragment (an exit sees every register), and none writes x (when
//     x is not t itself: j reads x's value from i's time);
//   - after j, t is written before anything reads it or any exit
//     (including the end) can see it, or j itself writes it.
//
// Then every register holds, at every exit and every read, the value
// the trace computed (ir's invariant), t included, since t's
// intermediate value is never observed. The bounds checks are
// unchanged: the pass runs after CheckRange, CheckHoist and
// CheckWiden, and the verifier follows a base plus a bounded scaled
// index through an OpShAdd as through the add it replaces.
func ShAdd(f *Func) {
	ins := f.Insts
	for j := range ins {
		in := &ins[j]
		if in.Op == interp.OpADD && in.Dst != 0 && !in.A.IsConst && !in.B.IsConst && in.A.Reg != 0 && in.B.Reg != 0 {
			for _, p := range [2][2]Val{{in.A, in.B}, {in.B, in.A}} {
				t, b := p[0].Reg, p[1].Reg
				if t == b {
					continue
				}
				i, ok := foldable(ins, t, j)
				if !ok {
					continue
				}
				d := &ins[i]
				if isShift(d) && unwritten(ins, d.A.Reg, i, j, -1) {
					*in = Inst{Op: OpShAdd, Dst: in.Dst, A: d.A, B: R(b), Scale: uint8(d.B.Const), Exit: -1, PC: in.PC, Step: in.Step, Len: in.Len}
					*d = selfMoveOf(d)
					break
				}
				// A constant added after the shift: t = (x<<k) + c.
				if d.Op != interp.OpADD || !d.B.IsConst || !FitsInt32(int64(d.B.Const)) || d.A.IsConst || d.A.Reg == 0 {
					continue
				}
				s := d.A.Reg
				i2, ok := shiftBefore(ins, s, t, i)
				if !ok {
					continue
				}
				e := &ins[i2]
				if !isShift(e) || !unwritten(ins, e.A.Reg, i2, j, i) {
					continue
				}
				*in = Inst{Op: OpShAdd, Dst: in.Dst, A: e.A, B: R(b), Scale: uint8(e.B.Const), Off: int64(d.B.Const), Exit: -1, PC: in.PC, Step: in.Step, Len: in.Len}
				*d, *e = selfMoveOf(d), selfMoveOf(e)
				break
			}
		}
		if in.Op != OpShAdd {
			continue
		}
		// Constants added to the index or the base move into the offset.
		for _, idx := range [2]bool{true, false} {
			v := &in.B
			if idx {
				v = &in.A
			}
			s := v.Reg
			if idx && in.B.Reg == s || !idx && in.A.Reg == s {
				continue // the other operand reads the same register
			}
			i, ok := foldable(ins, s, j)
			if !ok {
				continue
			}
			d := &ins[i]
			if d.Op != interp.OpADD || !d.B.IsConst || d.A.IsConst || d.A.Reg == 0 || !unwritten(ins, d.A.Reg, i, j, -1) {
				continue
			}
			c := int64(d.B.Const)
			if idx {
				c <<= in.Scale
			}
			if !FitsInt32(int64(d.B.Const)) || !FitsInt32(in.Off+c) {
				continue
			}
			v.Reg, in.Off = d.A.Reg, in.Off+c
			*d = selfMoveOf(d)
		}
	}
}

// foldable returns the index of the instruction before j that last wrote
// register t, if instruction j may compute from that instruction's
// operands in its place: nothing between them reads t or can leave the
// fragment (lastWrite), and after j nothing sees t's value before it is
// written again (unless j writes it).
func foldable(ins []Inst, t uint8, j int) (int, bool) {
	i, ok := lastWrite(ins, t, j)
	if !ok {
		return 0, false
	}
	if ins[j].Dst == t {
		return i, true
	}
	for k := j + 1; k < len(ins); k++ {
		in := &ins[k]
		if selfMove(in) {
			continue
		}
		if in.Exit >= 0 || in.Op == OpExit || reads(in, t) {
			return 0, false
		}
		if in.Dst == t {
			return i, true
		}
	}
	return 0, false
}

// lastWrite returns the index of the instruction before j that last
// wrote register t, if it takes no exit and nothing between it and j
// reads t or can leave the fragment. A move of a register to itself (an
// earlier fold's leftover) changes and shows nothing: it is passed over.
func lastWrite(ins []Inst, t uint8, j int) (int, bool) {
	for i := j - 1; i >= 0; i-- {
		in := &ins[i]
		if selfMove(in) {
			continue
		}
		if in.Dst == t {
			return i, in.Exit < 0
		}
		if in.Exit >= 0 || in.Op == OpExit || reads(in, t) {
			return 0, false
		}
	}
	return 0, false
}

// unwritten reports whether nothing strictly between from and to writes
// register x, which instruction to will read in from's place, other than
// instruction skip (-1: none), which becomes a move of its register to
// itself.
func unwritten(ins []Inst, x uint8, from, to, skip int) bool {
	for k := from + 1; k < to; k++ {
		if k != skip && ins[k].Dst == x && !selfMove(&ins[k]) {
			return false
		}
	}
	return true
}

// isShift reports whether d is a shift of a register left by 1..3.
func isShift(d *Inst) bool {
	return d.Op == interp.OpSLL && d.B.IsConst && d.B.Const >= 1 && d.B.Const <= 3 && !d.A.IsConst && d.A.Reg != 0
}

// selfMoveOf is the move of d's destination to itself that replaces a
// folded instruction d.
func selfMoveOf(d *Inst) Inst {
	return Inst{Op: OpMov, Dst: d.Dst, A: R(d.Dst), Exit: -1, PC: d.PC, Step: d.Step, Len: d.Len}
}

// shiftBefore returns the instruction before i that last wrote register
// s, which instruction i (t = add s, c) reads, if i's consumer may
// compute from that instruction's operand in their place: nothing
// between it and i reads s or can leave, and after i s is dead (written
// before any read or exit) or is t itself, whose later life foldable has
// checked.
func shiftBefore(ins []Inst, s, t uint8, i int) (int, bool) {
	if s != t {
		return foldable(ins, s, i)
	}
	return lastWrite(ins, s, i)
}

// selfMove reports whether in moves a register to itself.
func selfMove(in *Inst) bool { return in.Op == OpMov && in.A.IsReg(in.Dst) }

// reads reports whether in reads guest register r (its operands, a loop
// check's second base).
func reads(in *Inst, r uint8) bool {
	found := false
	in.Reads(func(x uint8) { found = found || x == r })
	return found
}
