// IR verifier: a Func -> nil, or an error naming the first broken invariant.

package ir

import (
	"fmt"

	"rvdyn/interp"
)

// Verify checks the invariants every pass must keep:
//
//   - operands are well formed: a register operand names x1..x31, Dst is
//     0 only where nothing is written, and each op has the operands it needs;
//   - each exit is taken by exactly one instruction, exits appear in their
//     creation (trace) order, and each exit's retired count matches the
//     instruction it leaves from (Step for an exit before the instruction
//     retires, Step+1 after), so instruction counts stay exact;
//   - steps never go backwards, and the last instruction, and only it, is
//     the unconditional end exit;
//   - a load or store without an exit has a constant address that is in
//     bounds for Env, or a register address an earlier check covers: a
//     check off the same base value (see CheckWiden: the register's
//     value followed through moves and additions of constants) whose
//     range of offsets holds this access's, for stores if this is a
//     store;
//     a register that holds a base value plus a bounded variable part
//     (see CheckRange and ranges) is covered if a check of that base
//     value holds every offset the variable part allows;
//   - a widened check holds its own access's offset and spans less than
//     the smallest interval it may have to fit in, as does an OpCheck.
func Verify(f *Func) error {
	if len(f.Insts) == 0 {
		return fmt.Errorf("no instructions")
	}
	used := make([]bool, len(f.Exits))
	lastExit, lastStep := -1, 0
	take := func(i, e int) error {
		if e < 0 || e >= len(f.Exits) {
			return fmt.Errorf("inst %d: exit %d out of range", i, e)
		}
		if used[e] {
			return fmt.Errorf("inst %d: exit %d taken twice", i, e)
		}
		if e <= lastExit {
			return fmt.Errorf("inst %d: exit %d after exit %d", i, e, lastExit)
		}
		used[e], lastExit = true, e
		return nil
	}
	env := f.env.Norm()
	vals, rg := newValues(), &ranges{}
	checks := map[int][]covered{} // per base value: what checks proved, as offsets from it
	if !f.Loops && (len(f.Pre) > 0 || f.Trip != Trip{}) {
		return fmt.Errorf("entry checks or a trip in a fragment that does not loop")
	}
	for i, in := range f.Pre {
		bad := func(format string, args ...any) error {
			return fmt.Errorf("entry inst %d (%v): %s", i, in, fmt.Sprintf(format, args...))
		}
		if in.Op != OpLoopCheck || in.A.IsConst || in.A.Reg == 0 || in.A.Reg > 31 || !in.B.IsConst {
			return bad("not a loop check of a register")
		}
		if err := take(-1-i, in.Exit); err != nil {
			return err
		}
		if e := f.Exits[in.Exit]; e.Kind != ExitInterp || e.Retired != 0 || e.Target != f.Head {
			return bad("loop check exit %v", e)
		}
		if c := int64(in.B.Const); c != 0 && (f.Trip.Step == 0 || !pow2(c) || c <= -MaxHoistStep || c >= MaxHoistStep) || in.Cover.Lo <= -maxHoistOff || in.Cover.Hi >= maxHoistOff {
			return bad("a stepping base without a trip bound, or a step too large")
		}
		c := in.Cover
		lo := env.ReadLo
		if c.Store {
			lo = env.WriteLo
		}
		if c.Lo > c.Hi || uint64(c.Hi-c.Lo) >= env.GuardLo-lo || env.MemSize > env.GuardHi && uint64(c.Hi-c.Lo) >= env.MemSize-env.GuardHi {
			return bad("range %d..%d does not fit an interval", c.Lo, c.Hi)
		}
		checks[int(in.A.Reg)] = append(checks[int(in.A.Reg)], covered{c.Lo, c.Hi, c.Store})
	}
	tripFound := false
	for i, in := range f.Insts {
		bad := func(format string, args ...any) error {
			return fmt.Errorf("inst %d (%v): %s", i, in, fmt.Sprintf(format, args...))
		}
		if in.Step < lastStep {
			return bad("step %d after step %d", in.Step, lastStep)
		}
		lastStep = in.Step
		for _, v := range []Val{in.A, in.B} {
			if !v.IsConst && v.Reg > 31 {
				return bad("operand names register %d", v.Reg)
			}
		}
		if in.Dst > 31 {
			return bad("writes register %d", in.Dst)
		}
		if (in.Op == OpExit) != (i == len(f.Insts)-1) {
			return bad("the end exit must be the last instruction, and only it")
		}
		writes := in.Op == OpMov || IsExt(in.Op) || IsALU(in.Op)
		if writes && in.Dst == 0 {
			return bad("computes a value into x0")
		}
		if xd, _, _ := in.Op.FRegs(); !writes && !IsLoad(in.Op) && in.Dst != 0 && !(IsFloat(in.Op) && !xd) && !IsCSRRead(in.Op) && !IsCSRWrite(in.Op) && !IsAtomic(in.Op) {
			return bad("op writes no register")
		}
		switch op := in.Op; {
		case writes:
			if in.Exit >= 0 {
				return bad("an ALU op takes no exit")
			}
		case IsLoad(op) || IsStore(op):
			if in.Exit < 0 {
				if in.Cover.Widened() {
					return bad("a widened check on an access without a check")
				}
				lo := f.env.ReadLo
				if IsStore(op) {
					lo = f.env.WriteLo
				}
				if in.A.IsConst && inBounds(in.A.Const+uint64(in.Off), lo, f.env) {
					break
				}
				if in.A.IsConst {
					return bad("access without a bounds check at an address not proven in bounds")
				}
				if id, delta := vals.of(in.A.Reg); coveredBy(checks[id], delta+in.Off, delta+in.Off, IsStore(op), env) {
					break
				}
				if id, lo, hi, ok := rg.span(in.A.Reg, in.Off); ok && coveredBy(checks[id], lo, hi, IsStore(op), env) {
					break
				}
				return bad("access without a bounds check at an address not proven in bounds")
			}
			if c := in.Cover; c.Widened() {
				lo := env.ReadLo
				if c.Store {
					lo = env.WriteLo
				}
				span := uint64(c.Hi - c.Lo)
				if c.Lo > in.Off || in.Off > c.Hi || span >= env.GuardLo-lo || env.MemSize > env.GuardHi && span >= env.MemSize-env.GuardHi {
					return bad("widened check %d..%d does not hold its access or fit an interval", c.Lo, c.Hi)
				}
				if IsStore(op) && !c.Store {
					return bad("a store's widened check covers loads only")
				}
			}
			if !in.A.IsConst {
				id, delta := vals.of(in.A.Reg)
				c := in.check()
				checks[id] = append(checks[id], covered{c.lo + delta, c.hi + delta, c.store})
			}
			if err := take(i, in.Exit); err != nil {
				return err
			}
			if e := f.Exits[in.Exit]; e.Kind != ExitInterp || e.Retired != in.Step || e.Target != in.PC {
				return bad("memory exit %v", e)
			}
		case op == OpCheck:
			if in.A.IsConst || in.A.Reg == 0 || in.B != (Val{}) || in.Off != 0 {
				return bad("not a check of a register")
			}
			c := in.Cover
			lo := env.ReadLo
			if c.Store {
				lo = env.WriteLo
			}
			if span := uint64(c.Hi - c.Lo); c.Lo > c.Hi || !checkOffs(c.Lo, c.Hi) || span >= env.GuardLo-lo || env.MemSize > env.GuardHi && span >= env.MemSize-env.GuardHi {
				return bad("check %d..%d does not fit an interval", c.Lo, c.Hi)
			}
			id, delta := vals.of(in.A.Reg)
			checks[id] = append(checks[id], covered{c.Lo + delta, c.Hi + delta, c.Store})
			if err := take(i, in.Exit); err != nil {
				return err
			}
			if e := f.Exits[in.Exit]; e.Kind != ExitInterp || e.Retired != in.Step || e.Target != in.PC {
				return bad("check exit %v", e)
			}
		case IsGuard(op):
			if err := take(i, in.Exit); err != nil {
				return err
			}
			if t, ok := tripOf(&in, vals); ok && op == interp.OpBEQ && f.Trip.Step != 0 && t.Reg == f.Trip.Reg && t.Delta == f.Trip.Delta && t.End == f.Trip.End {
				tripFound = true
			}
			e := f.Exits[in.Exit]
			if e.Kind == ExitBranch && e.Retired != in.Step+1 || e.Kind == ExitInterp && (e.Retired != in.Step || e.Target != in.PC) || e.Kind == ExitIndirect {
				return bad("guard exit %v", e)
			}
		case op == interp.OpJALR:
			if err := take(i, in.Exit); err != nil {
				return err
			}
			e := f.Exits[in.Exit]
			if e.Kind != ExitIndirect || e.Retired != in.Step+1 || !in.B.IsConst {
				return bad("indirect exit %v", e)
			}
		case op == OpSample:
			if err := take(i, in.Exit); err != nil {
				return err
			}
			if e := f.Exits[in.Exit]; e.Kind != ExitSample || e.Retired != in.Step || e.Target != in.PC || in.Off < 0 {
				return bad("sample exit %v", e)
			}
		case IsFloatLoad(op) || IsFloatStore(op) || op == OpFrm || IsAtomic(op):
			if err := take(i, in.Exit); err != nil {
				return err
			}
			if e := f.Exits[in.Exit]; e.Kind != ExitInterp || e.Retired != in.Step || e.Target != in.PC {
				return bad("interpreter exit %v", e)
			}
		case IsCSRRead(op) || IsCSRWrite(op):
			if in.Exit >= 0 || in.Off < interp.CSRFflags || in.Off > interp.CSRFcsr {
				return bad("a CSR access takes no exit and names fflags, frm or fcsr")
			}
		case IsFloat(op):
			if in.Exit >= 0 {
				return bad("a floating-point op takes no exit")
			}
			if _, _, _, c := FloatUses(op); in.F.RM > 3 && in.F.RM != 7 || c && !HostFMA {
				return bad("rounding mode %d, or fused multiply-add without the host's", in.F.RM)
			}
		case op == OpExit:
			if err := take(i, in.Exit); err != nil {
				return err
			}
			e := f.Exits[in.Exit]
			if e.Retired != in.Step || e.Kind == ExitIndirect || e.Kind == ExitBranch && e.Retired != f.Guest {
				return bad("end exit %v", e)
			}
			if f.Loops && (e.Kind != ExitBranch || e.Target != f.Head) {
				return bad("a looping fragment must end with a branch to its head")
			}
		default:
			return bad("unknown op")
		}
		rg.write(&in, vals)
		vals.write(&in)
	}
	// The loop checks hold for every iteration only if each base steps as
	// they say, and the trip bound only if its exit is there and its
	// registers step as it says.
	for _, in := range f.Pre {
		if id, delta := vals.of(in.A.Reg); id != int(in.A.Reg) || delta != int64(in.B.Const) {
			return fmt.Errorf("loop check %v: %v does not step by %d per iteration", in, in.A, int64(in.B.Const))
		}
	}
	if t := f.Trip; t.Step != 0 {
		id, delta := vals.of(t.Reg)
		end := t.End.IsConst
		if !end {
			eid, ed := vals.of(t.End.Reg)
			end = eid == int(t.End.Reg) && ed == 0
		}
		if !tripFound || id != int(t.Reg) || delta != t.Step || !pow2(t.Step) || !end {
			return fmt.Errorf("trip %+v: no exit beq at the bound, or registers that do not step as it says", t)
		}
	}
	return nil
}

// coveredBy reports whether one of the checks of a base value proves
// accesses at every offset in [lo, hi] (stores if store) in bounds. A
// check for stores proves loads only if stores may go no lower than
// loads.
func coveredBy(checks []covered, lo, hi int64, store bool, env Env) bool {
	for _, c := range checks {
		if c.lo <= lo && hi <= c.hi && (c.store == store || c.store && env.WriteLo >= env.ReadLo) {
			return true
		}
	}
	return false
}

// inBounds reports whether an access of up to 8 bytes at constant guest
// address a is known to be allowed for as long as the Env holds: it lies
// in [lo, StaticHi), the program's image.
func inBounds(a, lo uint64, env Env) bool {
	env = env.Norm()
	return a >= lo && a+8 <= env.StaticHi
}
