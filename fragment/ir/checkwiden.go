// Bounds-check widening: a Func -> the same Func with one check per base register value covering all its accesses' offsets, and no checks on the others.

package ir

// MaxCoverSpan bounds Hi-Lo of a widened check, in bytes. A wider check
// is likelier to fail where each access alone would pass (a base near
// the end of an interval, an access behind a side exit that is rarely
// reached), which costs a trip through the interpreter each time.
const MaxCoverSpan = 1 << 16

// CheckWiden gives each base register value one bounds check. Within the
// trace, the checked loads and stores whose address is a register not
// redefined in between (the same value) and that hit the same interval
// while recording form a group; the first access of the group in trace
// order gets a Cover over the group's offsets [minOff, maxOff], and the
// others lose their checks (and their exits).
//
// Soundness. Every dropped check is implied by the widened one: the base
// value is the same, and each dropped access's start address lies in
// [base+minOff, base+maxOff], which the widened check proved to lie in one
// accessible interval (the store intervals if any access of the group is
// a store); intervals are contiguous, so every address between the ends
// is accessible. The widened check executes before every access of the
// group, because it is the first of them in a straight-line trace (a
// self-loop restarts at the head, where the group starts over).
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
	env := f.env.Norm()
	// limit is the smallest accessible interval: a group whose span
	// does not fit in it would always fail its check.
	limit := min(env.GuardLo-max(env.ReadLo, env.WriteLo), uint64(MaxCoverSpan)+1)
	if s := env.MemSize - env.GuardHi; s > 0 {
		limit = min(limit, s)
	}
	// Stores widen a group's check to the store intervals. That implies
	// the load intervals only if stores may go no lower than loads.
	mixed := env.WriteLo >= env.ReadLo
	type key struct {
		reg   uint8
		ver   int
		stack bool
		store bool // only when loads and stores cannot share a check
	}
	type group struct {
		first  int // instruction carrying the check
		lo, hi int64
		store  bool
	}
	var ver [32]int
	groups := map[key][]int{} // indices into all
	var all []group
	for i := range f.Insts {
		in := &f.Insts[i]
		if (IsLoad(in.Op) || IsStore(in.Op)) && in.Exit >= 0 && !in.A.IsConst && !in.Cover.Widened() {
			k := key{reg: in.A.Reg, ver: ver[in.A.Reg], stack: in.Stack, store: !mixed && IsStore(in.Op)}
			joined := false
			for _, g := range groups[k] {
				g := &all[g]
				lo, hi := min(g.lo, in.Off), max(g.hi, in.Off)
				if uint64(hi-lo) >= limit {
					continue
				}
				g.lo, g.hi, g.store = lo, hi, g.store || IsStore(in.Op)
				in.Exit = -1
				joined = true
				break
			}
			if !joined {
				groups[k] = append(groups[k], len(all))
				all = append(all, group{first: i, lo: in.Off, hi: in.Off, store: IsStore(in.Op)})
			}
		}
		if in.Dst != 0 {
			ver[in.Dst]++
		}
	}
	for _, g := range all {
		in := &f.Insts[g.first]
		if g.lo != in.Off || g.hi != in.Off || g.store != IsStore(in.Op) {
			in.Cover = Cover{Lo: g.lo, Hi: g.hi, Store: g.store}
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

// covered is the check of one access, as Verify tracks them: the start
// addresses base+lo .. base+hi are accessible for loads, and also for
// stores if store.
type covered struct {
	lo, hi int64
	store  bool
}

// check returns what the bounds check of a checked access (Exit >= 0)
// proves about its base register.
func (in *Inst) check() covered {
	if in.Cover.Widened() {
		return covered{in.Cover.Lo, in.Cover.Hi, in.Cover.Store}
	}
	return covered{in.Off, in.Off, IsStore(in.Op)}
}
