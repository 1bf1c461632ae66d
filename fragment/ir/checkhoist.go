// Bounds-check hoisting: a self-loop Func -> the same Func with the checks of its induction and invariant bases moved into OpLoopChecks run once on entry.

package ir

import (
	"math/bits"
	"sort"

	"rvdyn/fragment/exit"
	"rvdyn/interp"
)

// MaxHoistStep bounds the step of an induction register CheckHoist
// hoists checks for, in bytes per iteration, so the emitted range
// computation (at most 2^31 iterations times the step) cannot overflow.
const MaxHoistStep = 1 << 16

// maxHoistOff bounds the offsets of a hoisted check, so that the
// emitted code can add them as 32-bit displacements.
const maxHoistOff = 1 << 29

// CheckHoist moves bounds checks out of a self-loop (a Func that Loops)
// where the induction is simple. A base register s whose value at the head
// of the next iteration is its value at the head of this one plus a
// constant step c (followed through moves and additions of constants, as
// in CheckWiden) is accessed in iteration k at s0+k*c+[lo, hi], s0 its
// value on entry and [lo, hi] the offsets of the accesses off it in the
// body. Then:
//
//   - if c is 0 (s does not change), one check of s0+[lo, hi] on entry
//     covers every iteration;
//   - else, if the loop has a Trip (an exit "beq X, End" with X = r0+d+k*r
//     in iteration k, the step r a power of two and End not changed by
//     the loop), at most K+1 iterations run after an entry, where
//     K = (End-r0-d)/r when that division is exact; one check of
//     s0+[lo, hi] stepped by c over iterations 0..K covers them all.
//     When the division is not exact or K is not below 2^31 the check
//     fails.
//
// Each such base gets an OpLoopCheck in Func.Pre and its accesses lose
// their checks. If an OpLoopCheck fails, the fragment leaves before its
// first instruction with nothing done (an interpreter exit at the head,
// after 0 instructions), and the interpreter runs the loop, raising any
// fault at the exact pc and instruction count; a hoisted check is
// therefore allowed to be pessimistic (all of iteration K, although the
// loop leaves at its guard) but never optimistic.
//
// A trip bound is used only when its exit is the loop's only guard (and
// there is no jalr): then the loop runs its K+1 iterations unless the
// budget runs out or an access faults, and a failed entry check means a
// fault ahead, not a loop that would have left early through another
// exit but now runs in the interpreter, as "for (p = s; p != s+n; p++)
// if (*p == c) break;" with a large n would. CheckHoistEarlyExits lifts
// that restriction, with a remedy for such loops.
//
// A derived base, the sum of two head values (a value computed by "add
// d, s, t" with s and t as they were at the head plus constants), is
// hoisted like a register when the sum steps as a register may: the
// OpLoopCheck names both (Inst.Index) and checks their sum at the entry,
// stepping by the sum of their steps. That is the shape of an indexed
// copy, "d[i] = s[i]" compiled to one induction register and a distance
// between the arrays, as in glibc's byte-at-a-time memcpy tail ("lbu;
// addi a5; add a3, a4, a5; sb 0(a3); bne"), which every RV64GC guest
// runs and whose store kept its check in every iteration.
//
// An OpCheck (see CheckRange) counts as the accesses it covers: when
// its base register is invariant or steps, it is hoisted like them and
// removed from the body.
//
// Only bases whose accesses all hit the same interval while recording
// are hoisted, so that one interval is checked, and only steps that are
// powers of two (either sign), so that the emitted code shifts.
func CheckHoist(f *Func) { checkHoist(f, false) }

// CheckHoistEarlyExits is CheckHoist that also uses a trip bound in a
// loop with other guards (or a jalr) than its trip's exit: a search
// ("while (i != n && a[i] != x) i++"), a loop with a break, a state
// machine's loop. The bound still holds, since such an exit only ends
// the loop earlier (never later), but the check of all K+1 iterations
// can fail for a loop that would have left long before an access went
// out of bounds; the interpreter then runs that entry's iterations.
// Such a fragment's loop checks leave through exits marked
// exit.Record.EntryTest, so that a dispatcher can compile a head whose
// checks keep failing again without this (fragment.Options
// NoCheckHoistExits).
func CheckHoistEarlyExits(f *Func) { checkHoist(f, true) }

func checkHoist(f *Func, early bool) {
	if !f.Loops || len(f.Pre) > 0 {
		return
	}
	env := f.env.Norm()
	mixed := env.WriteLo >= env.ReadLo
	type use struct {
		lo, hi        int64
		stack, mapped bool
		loads, stores bool
		mixedStack    bool
		n             int
	}
	uses := map[headBase]*use{}
	vals, wvals := newValues(), newValuesW32()
	trips, wtrips := []Trip{}, []Trip{}
	exits := 0 // guards and jalrs: the ways the loop can leave but a fault
	for i := range f.Insts {
		in := &f.Insts[i]
		if (IsAccess(in.Op) || in.Op == OpCheck) && in.Exit >= 0 && !in.A.IsConst {
			if b, delta, ok := headBaseOf(vals, in.A.Reg); ok {
				u := uses[b]
				if u == nil {
					u = &use{}
					uses[b] = u
				}
				c := in.check()
				if u.n == 0 {
					u.lo, u.hi, u.stack, u.mapped = delta+c.lo, delta+c.hi, in.Stack, in.Mapped
				}
				u.lo, u.hi = min(u.lo, delta+c.lo), max(u.hi, delta+c.hi)
				u.mixedStack = u.mixedStack || u.stack != in.Stack || u.mapped != in.Mapped
				u.loads = u.loads || IsLoad(in.Op) || IsFloatLoad(in.Op) || in.Op == OpCheck && !c.store
				u.stores = u.stores || c.store
				u.n++
			}
		}
		if IsGuard(in.Op) || in.Op == interp.OpJALR {
			exits++
		}
		if in.Op == interp.OpBEQ {
			if t, ok := tripOf(in, vals); ok {
				trips = append(trips, t)
			}
			if t, ok := tripOf(in, wvals); ok && wTripEnd(t.End) {
				t.W = true
				wtrips = append(wtrips, t)
			}
		}
		vals.write(in)
		wvals.write(in)
	}
	// stepIn returns s's step per iteration as v follows the body, or
	// false if its value at the next head is not its value at this head
	// plus a constant; step is stepIn with 64-bit additions.
	stepIn := func(v *values, s uint8) (int64, bool) {
		id, delta := v.of(s)
		return delta, id == int(s)
	}
	step := func(s uint8) (int64, bool) { return stepIn(vals, s) }
	if exits != 1 && !early {
		trips, wtrips = nil, nil // see CheckHoist
	}
	for _, t := range append(trips, wtrips...) {
		tv := vals
		if t.W {
			tv = wvals
		}
		c, ok := stepIn(tv, t.Reg)
		if !ok || !pow2(c) || c <= -MaxHoistStep || c >= MaxHoistStep {
			continue
		}
		t.Step = c
		if !t.End.IsConst {
			if c, ok := step(t.End.Reg); !ok || c != 0 {
				continue
			}
		}
		f.Trip = t
		break
	}
	limit := min(env.GuardLo-max(env.ReadLo, env.WriteLo), uint64(1)<<31)
	if s := env.MemSize - env.GuardHi; s > 0 {
		limit = min(limit, s)
	}
	hoisted := map[headBase]bool{}
	keys := make([]headBase, 0, len(uses))
	for b := range uses {
		keys = append(keys, b)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].less(keys[j]) })
	for _, b := range keys {
		u := uses[b]
		c, ok := step(b.a)
		if b.b != 0 {
			c2, ok2 := step(b.b)
			c, ok = c+c2, ok && ok2
		}
		if !ok || u.mixedStack || u.loads && u.stores && !mixed || uint64(u.hi-u.lo) >= limit {
			continue
		}
		if c != 0 && (f.Trip.Step == 0 || !pow2(c) || c <= -MaxHoistStep || c >= MaxHoistStep) || u.lo <= -maxHoistOff || u.hi >= maxHoistOff {
			continue
		}
		hoisted[b] = true
		f.Pre = append(f.Pre, Inst{Op: OpLoopCheck, A: R(b.a), Index: b.b, B: C(uint64(c)), Cover: Cover{Lo: u.lo, Hi: u.hi, Store: u.stores},
			Stack: u.stack, Mapped: u.mapped, PC: f.Head, Step: 0})
	}
	if len(f.Pre) == 0 {
		f.Trip = Trip{}
		return
	}
	// The Pre checks' exits come first in trace order: renumber the rest.
	n := len(f.Pre)
	pre := make([]Exit, n, n+len(f.Exits))
	for i := range f.Pre {
		pre[i] = Exit{Record: exit.Record{Kind: exit.Interp, Target: f.Head, From: f.Head}}
		f.Pre[i].Exit = i
	}
	f.Exits = append(pre, f.Exits...)
	vals = newValues()
	for i := range f.Insts {
		in := &f.Insts[i]
		if in.Exit >= 0 {
			in.Exit += n
		}
		if (IsAccess(in.Op) || in.Op == OpCheck) && in.Exit >= 0 && !in.A.IsConst {
			if b, _, ok := headBaseOf(vals, in.A.Reg); ok && hoisted[b] {
				in.Exit, in.Cover = -1, Cover{}
			}
		}
		vals.write(in)
	}
	// A hoisted OpCheck (CheckRange's check of a table base) has nothing
	// left to do.
	out := f.Insts[:0]
	for _, in := range f.Insts {
		if in.Op != OpCheck || in.Exit >= 0 {
			out = append(out, in)
		}
	}
	f.Insts = out
	stepping := false
	for _, in := range f.Pre {
		stepping = stepping || in.B.Const != 0
	}
	if !stepping {
		f.Trip = Trip{} // no hoisted check needs the bound
	}
	if f.Trip.Step != 0 && exits != 1 {
		// The bound of a loop that may leave earlier (CheckHoistEarlyExits).
		for i := range f.Pre {
			if f.Pre[i].Op == OpLoopCheck {
				f.Exits[f.Pre[i].Exit].EntryTest = true
			}
		}
	}
}

// A headBase is what a hoisted check's accesses are off: the head value
// of register a, or with b != 0 the sum of the head values of a and b
// (a < b), the derived base of "add a3, a4, a5" with a4 invariant and a5
// an induction register (gcc's shape for dst[i] = src[i], and glibc's
// byte copy loop). The sum steps by the sum of their steps.
type headBase struct{ a, b uint8 }

// less orders bases: single registers first, by register, then sums.
func (x headBase) less(y headBase) bool {
	if (x.b == 0) != (y.b == 0) {
		return x.b == 0
	}
	return x.a < y.a || x.a == y.a && x.b < y.b
}

// headBaseOf returns the base register r's value is off, and how far,
// if it is a head value or the sum of two (values.sum).
func headBaseOf(vals *values, r uint8) (headBase, int64, bool) {
	if id, delta := vals.of(r); id < 32 {
		return headBase{a: uint8(id)}, delta, id != 0
	}
	if s, ok := vals.sum(r); ok {
		return headBase{s.A, s.B}, s.D, true
	}
	return headBase{}, 0, false
}

// wTripEnd reports whether end may bound a Trip of 32-bit arithmetic: a
// register (the entry checks that it is sign-extended) or a constant
// that is a sign-extended 32-bit value.
func wTripEnd(end Val) bool {
	return !end.IsConst || int64(end.Const) == int64(int32(end.Const))
}

// tripOf returns the Trip a guard "exit if beq X, End" gives, if X is a
// head register's value plus a constant and the guard compares it with a
// constant or a register holding its head value. Its Step, and whether
// End's register stays unchanged, are for the caller to find at the end
// of the body.
func tripOf(in *Inst, vals *values) (Trip, bool) {
	for _, xe := range [2][2]Val{{in.A, in.B}, {in.B, in.A}} {
		x, end := xe[0], xe[1]
		if x.IsConst {
			continue
		}
		id, delta := vals.of(x.Reg)
		if id >= 32 {
			continue
		}
		if !end.IsConst {
			if eid, ed := vals.of(end.Reg); eid != int(end.Reg) || ed != 0 || eid == id {
				continue
			}
		}
		return Trip{Reg: uint8(id), Delta: delta, End: end}, true
	}
	return Trip{}, false
}

// pow2 reports whether |c| is a power of two.
func pow2(c int64) bool {
	if c < 0 {
		c = -c
	}
	return c > 0 && bits.OnesCount64(uint64(c)) == 1
}
