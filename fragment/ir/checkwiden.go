// Bounds-check widening: a Func -> the same Func with one check per base register value covering all its accesses' offsets, and no checks on the others.

package ir

import "rvdyn/interp"

// MaxCoverSpan bounds Hi-Lo of a widened check, in bytes. A wider check
// is likelier to fail where each access alone would pass (a base near
// the end of an interval, an access behind a side exit that is rarely
// reached), which costs a trip through the interpreter each time.
const MaxCoverSpan = 1 << 16

// CheckWiden gives each base value one bounds check. A base value is
// what some instruction wrote to a register, followed through moves and
// additions of constants: after "a5 = add a5, 8", 0(a5) is 8 off the
// value a5 held before. Within the trace, the checked loads and stores
// (integer and floating-point: fld, fsd, flw and fsw too) whose address
// is a register holding the same base value (at any
// constant distance), and that hit the same interval while recording,
// form a group; the first access of the group in trace order gets a Cover
// over the group's offsets from that value, [minOff, maxOff], and the
// others lose their checks (and their exits).
//
// Soundness. Every dropped check is implied by the widened one: the base
// value is the same, and each dropped access's start address lies in
// [base+minOff, base+maxOff], which the widened check proved to lie in one
// accessible interval (the store intervals if any access of the group is
// a store); intervals are contiguous, so every address between the ends
// is accessible. Addresses are computed modulo 2^64 in guest and host
// alike, and base+minOff+d for 0 <= d <= maxOff-minOff does not wrap once
// base+minOff is in an interval, so "register + its constant distance +
// offset" is the address the check covered. The widened check executes
// before every access of the group, because it is the first of them in
// a straight-line trace (a self-loop restarts at the head, where every
// group starts over).
//
// Faults. A widened check may fail where the first access alone would
// pass: an access further on is out of bounds, or would have left the
// trace at a side exit before it was reached. Then the fragment leaves
// through the first access's own exit, before that access, with the
// guest state the interpreter has there (the exit's Retired count). The
// interpreter then runs the accesses one by one and raises a fault, if
// any, at the exact pc and instruction count.
//
// A load that writes x0 only checks its address: once its check is
// covered it is removed.
func CheckWiden(f *Func) {
	limit, mixed := coverLimits(f.env.Norm())
	type key struct {
		id     int // the base value
		stack  bool
		mapped bool
		store  bool // only when loads and stores cannot share a check
	}
	type group struct {
		first  int   // instruction carrying the check
		delta  int64 // its base register's distance from the base value
		lo, hi int64 // offsets from the base value
		store  bool
	}
	vals := newValues()
	groups := map[key][]int{} // indices into all
	var all []group
	for i := range f.Insts {
		in := &f.Insts[i]
		if IsAccess(in.Op) && in.Exit >= 0 && !in.A.IsConst && !in.Cover.Widened() {
			id, delta := vals.of(in.A.Reg)
			k := key{id: id, stack: in.Stack, mapped: in.Mapped, store: !mixed && writesMemory(in.Op)}
			off := delta + in.Off
			joined := false
			for _, g := range groups[k] {
				g := &all[g]
				lo, hi := min(g.lo, off), max(g.hi, off)
				if uint64(hi-lo) >= limit {
					continue
				}
				g.lo, g.hi, g.store = lo, hi, g.store || writesMemory(in.Op)
				in.Exit = -1
				joined = true
				break
			}
			if !joined {
				groups[k] = append(groups[k], len(all))
				all = append(all, group{first: i, delta: delta, lo: off, hi: off, store: writesMemory(in.Op)})
			}
		}
		vals.write(in)
	}
	for _, g := range all {
		in := &f.Insts[g.first]
		if lo, hi := g.lo-g.delta, g.hi-g.delta; lo != in.Off || hi != in.Off || g.store != writesMemory(in.Op) {
			in.Cover = Cover{Lo: lo, Hi: hi, Store: g.store}
		}
	}
	out := f.Insts[:0]
	for _, in := range f.Insts {
		if !(IsLoad(in.Op) && in.Dst == 0 && in.Exit < 0) {
			out = append(out, in)
		}
	}
	f.Insts = out
}

// coverLimits returns what bounds a group's check in env: limit, the
// smallest accessible interval (a group whose span does not fit in it
// would always fail its check) or MaxCoverSpan+1 if that is smaller; and
// mixed, whether loads and stores may share a check (stores widen a
// group's check to the store intervals, which implies the load intervals
// only if stores may go no lower than loads).
func coverLimits(env Env) (limit uint64, mixed bool) {
	limit = min(env.GuardLo-max(env.ReadLo, env.WriteLo), uint64(MaxCoverSpan)+1)
	if s := env.MemSize - env.GuardHi; s > 0 {
		limit = min(limit, s)
	}
	return limit, env.WriteLo >= env.ReadLo
}

// maxDelta bounds the constant distance values tracks between a register
// and its base value, so that distances and offsets never overflow.
const maxDelta = 1 << 40

// values follows which base value each register holds along a trace: the
// register equals value id plus delta (modulo 2^64). A value is named by
// the instruction that computed it; the registers' values at the trace
// head are named by the registers.
type values struct {
	id    [32]int
	delta [32]int64
	next  int
	// sums are the values computed as the sum of two registers that
	// held head values, by value id: such a value is A+B+D at the head
	// of the iteration (CheckHoist's derived bases, the shape of
	// "dst[i] = src[i]" compiled to one index and two bases).
	sums map[int]sumOf
	// w32 follows 32-bit additions (addw of a constant) instead of
	// 64-bit ones, for a Trip of 32-bit arithmetic (Trip.W): a register
	// is then sext32(its value id + delta), or the value itself through
	// moves alone.
	w32 bool
}

// newValuesW32 returns a values that follows 32-bit additions of
// constants (see values.w32).
func newValuesW32() *values {
	v := newValues()
	v.w32 = true
	return v
}

// sumOf is a value that is the sum of head values A and B (registers,
// A < B, neither x0) plus D.
type sumOf struct {
	A, B uint8
	D    int64
}

// sum returns the head values register r's value is the sum of, plus a
// distance, if it is one (see values.sums).
func (v *values) sum(r uint8) (sumOf, bool) {
	s, ok := v.sums[v.id[r]]
	if ok {
		s.D += v.delta[r]
	}
	return s, ok
}

func newValues() *values {
	v := &values{next: 32}
	for r := range v.id {
		v.id[r] = r
	}
	return v
}

// of returns the base value register r holds and its distance from it.
func (v *values) of(r uint8) (id int, delta int64) { return v.id[r], v.delta[r] }

// write records in's write of its Dst (after in has read its operands):
// a move or an addition of a constant keeps the base value, anything else
// makes a new one.
func (v *values) write(in *Inst) {
	d := in.Dst
	if d == 0 {
		return
	}
	src, c := Val{}, int64(0)
	switch {
	case in.Op == OpMov && !in.A.IsConst:
		src = in.A
	case v.w32:
		if in.Op == interp.OpADDW && !in.A.IsConst && in.B.IsConst {
			src, c = in.A, int64(int32(in.B.Const))
		}
	case in.Op == interp.OpADD && !in.A.IsConst && in.B.IsConst:
		src, c = in.A, int64(in.B.Const)
	case in.Op == interp.OpADD && in.A.IsConst && !in.B.IsConst:
		src, c = in.B, int64(in.A.Const)
	}
	if src != (Val{}) && c > -maxDelta && c < maxDelta {
		if delta := v.delta[src.Reg] + c; delta > -maxDelta && delta < maxDelta {
			v.id[d], v.delta[d] = v.id[src.Reg], delta
			return
		}
	}
	var sum sumOf
	if !v.w32 && in.Op == interp.OpADD && !in.A.IsConst && !in.B.IsConst && in.A.Reg != 0 && in.B.Reg != 0 {
		ia, ib := v.id[in.A.Reg], v.id[in.B.Reg]
		sum = sumOf{uint8(min(ia, ib)), uint8(max(ia, ib)), v.delta[in.A.Reg] + v.delta[in.B.Reg]}
		if ia >= 32 || ib >= 32 || ia == ib || ia == 0 || ib == 0 {
			sum = sumOf{}
		}
	}
	v.id[d], v.delta[d] = v.next, 0
	if sum != (sumOf{}) {
		if v.sums == nil {
			v.sums = map[int]sumOf{}
		}
		v.sums[v.next] = sum
	}
	v.next++
}

// covered is the check of one access, as Verify tracks them: the start
// addresses A+lo .. A+hi (A its base register) are accessible for loads,
// and also for stores if store.
type covered struct {
	lo, hi int64
	store  bool
}

// check returns what the bounds check of a checked access (Exit >= 0)
// proves about its base register.
func (in *Inst) check() covered {
	if in.Cover.Widened() || in.Op == OpCheck {
		return covered{in.Cover.Lo, in.Cover.Hi, in.Cover.Store}
	}
	return covered{in.Off, in.Off, writesMemory(in.Op)}
}
