// Range-covered bounds checks: a Func -> the same Func with one OpCheck per base value covering its table lookups (base + bounded index), and no checks on the lookups.

package ir

import "rvdyn/interp"

// CheckRange gives the table lookups off one base value one bounds check.
// A table lookup is a load or store whose address register holds a base
// value (as CheckWiden follows them) plus a constant plus a variable part
// whose range the trace bounds: after
//
//	a4 = zext.b a5 ; a7 = add a4, 768 ; a7 = sll a7, 2 ; a7 = add a6, a7
//
// a7 is a6's value plus something in [3072, 4092] (see ranges). Within
// the trace, the checked lookups off the same base value that hit the
// same interval while recording form a group, with the offsets [lo, hi]
// from the base value that any of them may touch. The group's check, an
// OpCheck of [lo, hi] on a register holding the base value (at its own
// constant distance from it), goes right before the group's first lookup
// and takes that lookup's exit; the lookups lose their checks. A lookup
// for which no register holds the base value at that point (near enough
// for 32-bit displacements) keeps its own check. When the base register does not change in a self-loop,
// CheckHoist then moves the OpCheck to the entry.
//
// Soundness. Every dropped check is implied by the OpCheck: the base
// value is the same (values are never overwritten, only registers), each
// dropped lookup's start address is base + its distance + its offset +
// a variable part in [vlo, vhi], so it lies in [base+lo, base+hi], which
// the OpCheck proved to lie in one accessible interval (the store
// intervals if any lookup of the group is a store); intervals are
// contiguous. The ranges are of unsigned values below 2^40, exact as
// 64-bit integers, so the guest's sum modulo 2^64 is the sum the range
// describes, and base+lo+d for 0 <= d <= hi-lo does not wrap once base+lo
// is in an interval. The OpCheck executes before every lookup of the
// group, because it is placed before the first of them in a
// straight-line trace (a self-loop restarts at the head, where every
// group starts over).
//
// Faults. The OpCheck may fail where the first lookup alone would pass
// (another index of the range is out of bounds, or a later lookup would
// have left the trace at a side exit first). Then the fragment leaves
// through the first lookup's exit, before it, with the guest state the
// interpreter has there (the exit's Retired count), and the interpreter
// runs the lookups one by one, raising a fault, if any, at the exact pc
// and instruction count.
func CheckRange(f *Func) {
	limit, mixed := coverLimits(f.env.Norm())
	type key struct {
		id    int
		stack bool
		store bool // only when loads and stores cannot share a check
	}
	type group struct {
		at     int   // the first lookup, which the OpCheck goes before
		reg    uint8 // the register holding the base value there
		delta  int64 // its distance from the base value
		lo, hi int64 // offsets from the base value
		store  bool
		exit   int // the first lookup's exit
	}
	vals, rg := newValues(), &ranges{}
	groups := map[key][]int{}
	var all []group
	for i := range f.Insts {
		in := &f.Insts[i]
		if IsAccess(in.Op) && in.Exit >= 0 && !in.A.IsConst && !in.Cover.Widened() {
			if id, lo, hi, ok := rg.span(in.A.Reg, in.Off); ok {
				k := key{id: id, stack: in.Stack, store: !mixed && writesMemory(in.Op)}
				joined := false
				for _, g := range groups[k] {
					g := &all[g]
					lo, hi := min(g.lo, lo), max(g.hi, hi)
					if uint64(hi-lo) >= limit || !checkOffs(lo-g.delta, hi-g.delta) {
						continue
					}
					g.lo, g.hi, g.store = lo, hi, g.store || writesMemory(in.Op)
					joined = true
					break
				}
				if r, delta, found := vals.holding(id, lo); !joined && found && uint64(hi-lo) < limit && checkOffs(lo-delta, hi-delta) {
					groups[k] = append(groups[k], len(all))
					all = append(all, group{at: i, reg: r, delta: delta, lo: lo, hi: hi, store: writesMemory(in.Op), exit: in.Exit})
					joined = true
				}
				if joined {
					in.Exit = -1
				}
			}
		}
		rg.write(in, vals)
		vals.write(in)
	}
	if len(all) == 0 {
		return
	}
	out := make([]Inst, 0, len(f.Insts)+len(all))
	next := 0
	for i, in := range f.Insts {
		if next < len(all) && all[next].at == i {
			g := all[next]
			next++
			out = append(out, Inst{Op: OpCheck, A: R(g.reg), Exit: g.exit, PC: in.PC, Step: in.Step, Stack: in.Stack, Mapped: in.Mapped,
				Cover: Cover{Lo: g.lo - g.delta, Hi: g.hi - g.delta, Store: g.store}})
		}
		out = append(out, in)
	}
	f.Insts = out
}

// checkOffs reports whether an OpCheck may check offsets lo..hi off its
// register: within maxHoistOff, so that the emitted code adds them as
// 32-bit displacements (the base register may be far from the lookups,
// as in "t1 = add a6, 1<<39 ; a7 = add t1, a4").
func checkOffs(lo, hi int64) bool { return lo > -maxHoistOff && hi < maxHoistOff }

// ranges follows, along a trace, which registers hold a bounded value
// (an unsigned integer in [lo, hi], hi below maxDelta) and which hold a
// base value plus a constant plus a bounded variable part. It is updated
// by write before values is, so that operands name the values they held
// before the instruction.
type ranges struct {
	b [32]bound
	r [32]rel
}

// A bound is the range [lo, hi] of a register's value, if ok.
type bound struct {
	lo, hi int64
	ok     bool
}

// A rel says a register holds base value id + delta + v, v in [vlo, vhi],
// if ok.
type rel struct {
	id       int
	delta    int64
	vlo, vhi int64
	ok       bool
}

// mk returns the bound [lo, hi] if it is small and non-negative.
func mk(lo, hi int64) bound {
	return bound{lo, hi, 0 <= lo && lo <= hi && hi < maxDelta}
}

// of returns v's bound (constants are not bounded: a constant base must
// stay a base).
func (g *ranges) of(v Val) bound {
	if v.IsConst || v.Reg == 0 {
		return bound{}
	}
	return g.b[v.Reg]
}

// span returns the base value an access at off(r) is relative to and the
// offsets from it the access may start at, if r holds a base value plus
// a bounded variable part.
func (g *ranges) span(r uint8, off int64) (id int, lo, hi int64, ok bool) {
	x := g.r[r]
	if !x.ok || off <= -maxDelta || off >= maxDelta {
		return 0, 0, 0, false
	}
	return x.id, x.delta + off + x.vlo, x.delta + off + x.vhi, true
}

// write records in's write of its Dst; vals still holds the values
// before in.
func (g *ranges) write(in *Inst, vals *values) {
	d := in.Dst
	if d == 0 {
		return
	}
	g.b[d], g.r[d] = g.boundOf(in), g.relOf(in, vals)
}

// boundOf returns the range of the value in computes.
func (g *ranges) boundOf(in *Inst) bound {
	a, b := g.of(in.A), g.of(in.B)
	k := int64(in.B.Const)
	switch in.Op {
	case OpMov:
		return a
	case OpZext8, interp.OpLBU:
		return mk(0, 1<<8-1)
	case OpZext16, interp.OpLHU:
		return mk(0, 1<<16-1)
	case OpZext32, interp.OpLWU:
		return mk(0, 1<<32-1)
	case interp.OpAND:
		for _, x := range [2]struct {
			v Val
			o bound
		}{{in.A, b}, {in.B, a}} {
			if m := int64(x.v.Const); x.v.IsConst && m >= 0 {
				if x.o.ok {
					m = min(m, x.o.hi)
				}
				return mk(0, m)
			}
		}
		if a.ok && b.ok {
			return mk(0, min(a.hi, b.hi))
		}
	case interp.OpSRLW:
		if k &= 31; in.B.IsConst && k >= 1 {
			return mk(0, 1<<(32-k)-1) // bit 31 of the 32-bit result is clear
		}
	case interp.OpSRL:
		if k &= 63; in.B.IsConst && k >= 1 {
			if a.ok {
				return mk(a.lo>>k, a.hi>>k)
			}
			if 64-k < 40 {
				return mk(0, 1<<(64-k)-1)
			}
		}
	case interp.OpSLL:
		if k &= 63; in.B.IsConst && a.ok && a.hi < maxDelta>>k {
			return mk(a.lo<<k, a.hi<<k)
		}
	case interp.OpADD:
		if c := int64(in.B.Const); in.B.IsConst && a.ok && c > -maxDelta && c < maxDelta {
			return mk(a.lo+c, a.hi+c)
		}
		if c := int64(in.A.Const); in.A.IsConst && b.ok && c > -maxDelta && c < maxDelta {
			return mk(b.lo+c, b.hi+c)
		}
		if a.ok && b.ok {
			return mk(a.lo+b.lo, a.hi+b.hi)
		}
	case OpShAdd:
		if k := in.Scale; a.ok && b.ok && a.hi < maxDelta>>k && in.Off > -maxDelta && in.Off < maxDelta {
			return mk(a.lo<<k+b.lo+in.Off, a.hi<<k+b.hi+in.Off)
		}
	}
	return bound{}
}

// relOf returns what in's result is relative to: a base value plus a
// bounded part, from "add base, bounded" (either order), and kept
// through moves and additions of constants and of bounded values.
func (g *ranges) relOf(in *Inst, vals *values) rel {
	switch in.Op {
	case OpMov:
		if !in.A.IsConst && in.A.Reg != 0 {
			return g.r[in.A.Reg]
		}
	case interp.OpADD:
		for _, p := range [2][2]Val{{in.A, in.B}, {in.B, in.A}} {
			x, y := p[0], p[1]
			if x.IsConst || x.Reg == 0 {
				continue
			}
			r := g.r[x.Reg]
			if c := int64(y.Const); y.IsConst && r.ok && c > -maxDelta && c < maxDelta {
				if r.delta += c; r.delta > -maxDelta && r.delta < maxDelta {
					return r
				}
				continue
			}
			b := g.of(y)
			if !b.ok {
				continue
			}
			if r.ok {
				if r.vlo, r.vhi = r.vlo+b.lo, r.vhi+b.hi; r.vhi < maxDelta {
					return r
				}
				continue
			}
			id, delta := vals.of(x.Reg)
			return rel{id: id, delta: delta, vlo: b.lo, vhi: b.hi, ok: true}
		}
	case OpShAdd:
		// base B plus the bounded A<<Scale plus Off (ShAdd's table lookups)
		k, a := in.Scale, g.of(in.A)
		if !a.ok || a.hi >= maxDelta>>k || in.Off <= -maxDelta || in.Off >= maxDelta {
			break
		}
		r := g.r[in.B.Reg]
		if !r.ok {
			id, delta := vals.of(in.B.Reg)
			r = rel{id: id, delta: delta, ok: true}
		}
		r.vlo, r.vhi, r.delta = r.vlo+a.lo<<k, r.vhi+a.hi<<k, r.delta+in.Off
		if r.vhi < maxDelta && r.delta > -maxDelta && r.delta < maxDelta {
			return r
		}
	}
	return rel{}
}

// holding returns a register that holds base value id, and its distance
// from it: of those that do, the one whose distance is nearest to near.
func (v *values) holding(id int, near int64) (r uint8, delta int64, ok bool) {
	dist := func(d int64) uint64 {
		if d < near {
			return uint64(near - d)
		}
		return uint64(d - near)
	}
	for x := uint8(1); x < 32; x++ {
		if v.id[x] == id && (!ok || dist(v.delta[x]) < dist(delta)) {
			r, delta, ok = x, v.delta[x], true
		}
	}
	return r, delta, ok
}
