// IR verifier: a Func -> nil, or an error naming the first broken invariant; one checker per invariant.

package ir

import (
	"fmt"

	"rvdyn/fragment/exit"
	"rvdyn/interp"
)

// Verify checks the invariants every pass must keep, one checker each
// (checkers, in this order):
//
//   - operands are well formed: a register operand names x1..x31, Dst is
//     0 only where nothing is written, each op has the operands it needs,
//     and ops that take no exit (ALU, floating point, CSR) have none;
//   - steps never go backwards, and the last instruction, and only it, is
//     the unconditional end exit;
//   - each exit is taken by exactly one instruction, exits appear in their
//     creation (trace) order, and each exit's kind, target and retired
//     count match the instruction it leaves from (Step for an exit before
//     the instruction retires, Step+1 after), so instruction counts stay
//     exact;
//   - a load or store without an exit has a constant address that is in
//     bounds for Env, or a register address an earlier check covers: a
//     check off the same base value (see CheckWiden: the register's
//     value followed through moves and additions of constants) whose
//     range of offsets holds this access's, for stores if this is a
//     store;
//     a register that holds a base value plus a bounded variable part
//     (see CheckRange and ranges) is covered if a check of that base
//     value holds every offset the variable part allows;
//     a widened check holds its own access's offset and spans less than
//     the smallest interval it may have to fit in, as does an OpCheck or
//     an entry loop check;
//   - entry loop checks and a trip bound appear only in a looping
//     fragment, each checked base steps by what its loop check says, and
//     a trip bound has its exit and registers that step as it says.
func Verify(f *Func) error {
	if len(f.Insts) == 0 {
		return fmt.Errorf("no instructions")
	}
	for _, c := range checkers {
		if err := c(f); err != nil {
			return err
		}
	}
	return nil
}

// checkers are Verify's checkers, one per invariant, in the order they
// run.
var checkers = []func(*Func) error{verifyOperands, verifySteps, verifyExits, verifyBounds, verifyLoop}

// An opClass is what the verifier checks an op as.
type opClass uint8

const (
	classALU    opClass = iota // writes a register from registers and constants
	classMem                   // a load or store, integer or floating-point
	classCheck                 // OpCheck
	classGuard                 // a conditional exit
	classJALR                  // an indirect jump
	classSample                // OpSample
	classInterp                // leaves to the interpreter when it cannot run (frm, atomics)
	classCSR                   // a CSR read or write of fflags, frm or fcsr
	classFloat                 // floating-point arithmetic
	classEnd                   // the end exit
	classUnknown
)

// classOf returns op's class.
func classOf(op interp.Op) opClass {
	switch {
	case op == OpMov || IsExt(op) || IsRot(op) || IsALU(op) || op == OpShAdd:
		return classALU
	case IsAccess(op):
		return classMem
	case op == OpCheck:
		return classCheck
	case IsGuard(op):
		return classGuard
	case op == interp.OpJALR:
		return classJALR
	case op == OpSample:
		return classSample
	case op == OpFrm || IsAtomic(op):
		return classInterp
	case IsCSRRead(op) || IsCSRWrite(op):
		return classCSR
	case IsFloat(op):
		return classFloat
	case op == OpExit:
		return classEnd
	}
	return classUnknown
}

// badInst is the error of instruction i (entry instructions count from
// -1 down).
func badInst(i int, in *Inst, format string, args ...any) error {
	if i < 0 {
		return fmt.Errorf("entry inst %d (%v): %s", -1-i, *in, fmt.Sprintf(format, args...))
	}
	return fmt.Errorf("inst %d (%v): %s", i, *in, fmt.Sprintf(format, args...))
}

// verifyOperands checks that operands are well formed.
func verifyOperands(f *Func) error {
	for i := range f.Pre {
		in := &f.Pre[i]
		if i > 0 && in.Op == OpLoopCheck && f.Pre[i-1].Op != OpLoopCheck {
			return badInst(-1-i, in, "a loop check after a box or rounding-mode check")
		}
		switch in.Op {
		case OpBoxCheck:
			if in.Off <= 0 || in.Off > 1<<32-1 || in.A != (Val{}) || in.B != (Val{}) {
				return badInst(-1-i, in, "a box check of no f register")
			}
			continue
		case OpFrm:
			if in.Off != 0 || in.A != (Val{}) || in.B != (Val{}) {
				return badInst(-1-i, in, "a rounding-mode check with operands")
			}
			continue
		}
		if in.Op != OpLoopCheck || in.A.IsConst || in.A.Reg == 0 || in.A.Reg > 31 || !in.B.IsConst {
			return badInst(-1-i, in, "not a loop check of a register")
		}
		if in.Index != 0 && (in.Index <= in.A.Reg || in.Index > 31) {
			return badInst(-1-i, in, "a loop check's second register must follow its first")
		}
	}
	for i := range f.Insts {
		in := &f.Insts[i]
		if in.Index != 0 {
			return badInst(i, in, "only a loop check has a second base register")
		}
		if in.Scale != 0 && in.Op != OpShAdd || in.Op == OpShAdd && (in.Scale > 3 || in.A.IsConst || in.A.Reg == 0 || in.B.IsConst || in.B.Reg == 0 || !FitsInt32(in.Off)) {
			return badInst(i, in, "only a shadd has a scale (0..3), of two registers and a 32-bit offset")
		}
		for _, v := range []Val{in.A, in.B} {
			if !v.IsConst && v.Reg > 31 {
				return badInst(i, in, "operand names register %d", v.Reg)
			}
		}
		if in.Dst > 31 {
			return badInst(i, in, "writes register %d", in.Dst)
		}
		class := classOf(in.Op)
		if class == classALU && in.Dst == 0 {
			return badInst(i, in, "computes a value into x0")
		}
		if xd, _, _ := in.Op.FRegs(); class != classALU && !IsLoad(in.Op) && in.Dst != 0 && !(IsFloat(in.Op) && !xd) && !IsCSRRead(in.Op) && !IsCSRWrite(in.Op) && !IsAtomic(in.Op) {
			return badInst(i, in, "op writes no register")
		}
		switch class {
		case classALU:
			if in.Exit >= 0 {
				return badInst(i, in, "an ALU op takes no exit")
			}
			if IsRot(in.Op) && (!in.B.IsConst || in.B.Const == 0 || in.Op == OpRor && in.B.Const > 63 || in.Op == OpRorW && in.B.Const > 31) {
				return badInst(i, in, "rotation amount is not a constant in range")
			}
		case classCheck:
			if in.A.IsConst || in.A.Reg == 0 || in.B != (Val{}) || in.Off != 0 {
				return badInst(i, in, "not a check of a register")
			}
		case classCSR:
			if in.Exit >= 0 || in.Off < interp.CSRFflags || in.Off > interp.CSRFcsr {
				return badInst(i, in, "a CSR access takes no exit and names fflags, frm or fcsr")
			}
		case classFloat:
			if in.F.Quiet && !isFloatCompare(in.Op) {
				return badInst(i, in, "only a compare is quiet")
			}
			if guarded := ExactGuarded(in.Op, in.F.RM); guarded != (in.Exit >= 0) {
				return badInst(i, in, "a floating-point op takes an exit if and only if it is a conversion from an integer under a static rounding mode (ExactGuarded)")
			}
			if _, _, _, c := FloatUses(in.Op); in.F.RM > 3 && in.F.RM != 7 && !(in.F.RM == 4 && roundsAway(in.Op)) || c && !HostFMA {
				return badInst(i, in, "rounding mode %d, or fused multiply-add without the host's", in.F.RM)
			}
		case classUnknown:
			return badInst(i, in, "unknown op")
		}
	}
	return nil
}

// verifySteps checks that steps never go backwards and that the end exit
// is the last instruction, and only it.
func verifySteps(f *Func) error {
	last := 0
	for i := range f.Insts {
		in := &f.Insts[i]
		if in.Step < last {
			return badInst(i, in, "step %d after step %d", in.Step, last)
		}
		last = in.Step
		if (in.Op == OpExit) != (i == len(f.Insts)-1) {
			return badInst(i, in, "the end exit must be the last instruction, and only it")
		}
	}
	return nil
}

// verifyExits checks that each exit is taken once, in creation order, and
// that its kind, target and retired count match the instruction taking
// it.
func verifyExits(f *Func) error {
	used := make([]bool, len(f.Exits))
	lastExit := -1
	take := func(i int, in *Inst) (Exit, error) {
		e := in.Exit
		if e < 0 || e >= len(f.Exits) {
			return Exit{}, fmt.Errorf("inst %d: exit %d out of range", i, e)
		}
		if used[e] {
			return Exit{}, fmt.Errorf("inst %d: exit %d taken twice", i, e)
		}
		if e <= lastExit {
			return Exit{}, fmt.Errorf("inst %d: exit %d after exit %d", i, e, lastExit)
		}
		used[e], lastExit = true, e
		return f.Exits[e], nil
	}
	for i := range f.Pre {
		in := &f.Pre[i]
		e, err := take(-1-i, in)
		if err != nil {
			return err
		}
		if e.Kind != exit.Interp || e.Retired != 0 || e.Target != f.Head {
			return badInst(-1-i, in, "loop check exit %v", e)
		}
	}
	// toInterp says whether e leaves before in retires, to run it in the
	// interpreter.
	toInterp := func(in *Inst, e Exit) bool {
		return e.Kind == exit.Interp && e.Retired == in.Step && e.Target == in.PC
	}
	for i := range f.Insts {
		in := &f.Insts[i]
		class := classOf(in.Op)
		if (class == classMem || class == classFloat) && in.Exit < 0 || class == classALU || class == classCSR {
			continue // no exit: verifyOperands and verifyBounds check that it may have none
		}
		e, err := take(i, in)
		if err != nil {
			return err
		}
		switch class {
		case classMem:
			if !toInterp(in, e) {
				return badInst(i, in, "memory exit %v", e)
			}
		case classCheck:
			if !toInterp(in, e) {
				return badInst(i, in, "check exit %v", e)
			}
		case classGuard:
			if e.Kind == exit.Branch && e.Retired != in.Step+1 || e.Kind == exit.Interp && !toInterp(in, e) || e.Kind == exit.Indirect {
				return badInst(i, in, "guard exit %v", e)
			}
		case classJALR:
			if e.Kind != exit.Indirect || e.Retired != in.Step+1 || !in.B.IsConst {
				return badInst(i, in, "indirect exit %v", e)
			}
		case classSample:
			if e.Kind != exit.Sample || e.Retired != in.Step || e.Target != in.PC || in.Off < 0 {
				return badInst(i, in, "sample exit %v", e)
			}
		case classInterp, classFloat: // a float op's: ExactGuarded
			if !toInterp(in, e) {
				return badInst(i, in, "interpreter exit %v", e)
			}
		case classEnd:
			if e.Retired != in.Step || e.Kind == exit.Indirect || e.Kind == exit.Branch && e.Retired != f.Guest {
				return badInst(i, in, "end exit %v", e)
			}
			if f.Loops && (e.Kind != exit.Branch || e.Target != f.Head) {
				return badInst(i, in, "a looping fragment must end with a branch to its head")
			}
		}
	}
	return nil
}

// fitsInterval reports whether a check of offsets lo..hi (for stores if
// store) is narrower than the smallest interval it may have to fit in.
func fitsInterval(lo, hi int64, store bool, env Env) bool {
	low := env.ReadLo
	if store {
		low = env.WriteLo
	}
	span := uint64(hi - lo)
	return lo <= hi && span < env.GuardLo-low && (env.MemSize <= env.GuardHi || span < env.MemSize-env.GuardHi)
}

// verifyBounds checks that every load and store is proven in bounds: by
// its own check, by an earlier check of the same base value, or by a
// constant address inside the image; and that every check fits an
// interval.
func verifyBounds(f *Func) error {
	env := f.env.Norm()
	vals, rg := newValues(), &ranges{}
	checks := map[int][]covered{} // per base value: what checks proved, as offsets from it
	for i := range f.Pre {
		in := &f.Pre[i]
		if in.Op != OpLoopCheck {
			continue
		}
		if c := int64(in.B.Const); c != 0 && (f.Trip.Step == 0 || !pow2(c) || c <= -MaxHoistStep || c >= MaxHoistStep) || in.Cover.Lo <= -maxHoistOff || in.Cover.Hi >= maxHoistOff {
			return badInst(-1-i, in, "a stepping base without a trip bound, or a step too large")
		}
		c := in.Cover
		if !fitsInterval(c.Lo, c.Hi, c.Store, env) {
			return badInst(-1-i, in, "range %d..%d does not fit an interval", c.Lo, c.Hi)
		}
		k := int(in.A.Reg)
		if in.Index != 0 {
			k = sumKey(in.A.Reg, in.Index)
		}
		checks[k] = append(checks[k], covered{c.Lo, c.Hi, c.Store})
	}
	for i := range f.Insts {
		in := &f.Insts[i]
		switch classOf(in.Op) {
		case classMem:
			if err := verifyAccess(i, in, f.env, env, vals, rg, checks); err != nil {
				return err
			}
		case classCheck:
			c := in.Cover
			if !checkOffs(c.Lo, c.Hi) || !fitsInterval(c.Lo, c.Hi, c.Store, env) {
				return badInst(i, in, "check %d..%d does not fit an interval", c.Lo, c.Hi)
			}
			id, delta := vals.of(in.A.Reg)
			checks[id] = append(checks[id], covered{c.Lo + delta, c.Hi + delta, c.Store})
		}
		rg.write(in, vals)
		vals.write(in)
		if s, ok := vals.sum(in.Dst); ok && in.Dst != 0 {
			// A sum of two head values: what a loop check of that sum
			// proved, as offsets from the new value (A+B+D).
			id, _ := vals.of(in.Dst)
			for _, c := range checks[sumKey(s.A, s.B)] {
				checks[id] = append(checks[id], covered{c.lo - s.D, c.hi - s.D, c.store})
			}
		}
	}
	return nil
}

// sumKey is verifyBounds' key for the checks of the sum of head values a
// and b (an OpLoopCheck with an Index): negative, apart from value ids.
func sumKey(a, b uint8) int { return -1 - int(a)*32 - int(b) }

// verifyAccess checks load or store i: without an exit, that an earlier
// check or its constant address proves it in bounds; with one, that a
// widened check holds its own offset and fits an interval. It adds what
// the access's own check proves to checks.
func verifyAccess(i int, in *Inst, fenv, env Env, vals *values, rg *ranges, checks map[int][]covered) error {
	store := writesMemory(in.Op)
	if in.Exit < 0 {
		if in.Cover.Widened() {
			return badInst(i, in, "a widened check on an access without a check")
		}
		lo := fenv.ReadLo
		if store {
			lo = fenv.WriteLo
		}
		if in.A.IsConst {
			if inBounds(in.A.Const+uint64(in.Off), lo, fenv) {
				return nil
			}
			return badInst(i, in, "access without a bounds check at an address not proven in bounds")
		}
		if id, delta := vals.of(in.A.Reg); coveredBy(checks[id], delta+in.Off, delta+in.Off, store, env) {
			return nil
		}
		if id, lo, hi, ok := rg.span(in.A.Reg, in.Off); ok && coveredBy(checks[id], lo, hi, store, env) {
			return nil
		}
		return badInst(i, in, "access without a bounds check at an address not proven in bounds")
	}
	if c := in.Cover; c.Widened() {
		if c.Lo > in.Off || in.Off > c.Hi || !fitsInterval(c.Lo, c.Hi, c.Store, env) {
			return badInst(i, in, "widened check %d..%d does not hold its access or fit an interval", c.Lo, c.Hi)
		}
		if store && !c.Store {
			return badInst(i, in, "a store's widened check covers loads only")
		}
	}
	if !in.A.IsConst {
		id, delta := vals.of(in.A.Reg)
		c := in.check()
		checks[id] = append(checks[id], covered{c.lo + delta, c.hi + delta, c.store})
	}
	return nil
}

// verifyLoop checks that entry loop checks and a trip bound appear only in
// a looping fragment, and that they hold for every iteration: each base
// steps as its loop check says, and the trip bound's exit is there with
// registers that step as it says.
func verifyLoop(f *Func) error {
	if !f.Loops {
		// Only a box check (BoxCheckLine), whose exit is an entry test.
		if len(f.Pre) > 1 || len(f.Pre) == 1 && (f.Pre[0].Op != OpBoxCheck || !f.Exits[f.Pre[0].Exit].EntryTest) || f.Trip != (Trip{}) {
			return fmt.Errorf("entry checks other than a box check, or a trip, in a fragment that does not loop")
		}
		if len(f.Pre) == 1 {
			return verifyBoxCheck(f, uint32(f.Pre[0].Off))
		}
		return nil
	}
	if len(f.Pre) == 0 && f.Trip.Step == 0 {
		return nil
	}
	vals, tvals := newValues(), newValues() // tvals follows the trip's arithmetic
	if f.Trip.W {
		tvals = newValuesW32()
		if !wTripEnd(f.Trip.End) {
			return fmt.Errorf("trip %+v: a 32-bit trip's end is a constant outside 32 bits", f.Trip)
		}
	}
	tripFound := false
	for i := range f.Insts {
		in := &f.Insts[i]
		if t, ok := tripOf(in, tvals); ok && in.Op == interp.OpBEQ && f.Trip.Step != 0 && t.Reg == f.Trip.Reg && t.Delta == f.Trip.Delta && t.End == f.Trip.End {
			tripFound = true
		}
		vals.write(in)
		tvals.write(in)
	}
	for _, in := range f.Pre {
		switch in.Op {
		case OpBoxCheck:
			if err := verifyBoxCheck(f, uint32(in.Off)); err != nil {
				return err
			}
			continue
		case OpFrm:
			if err := verifyFrmHoisted(f); err != nil {
				return err
			}
			continue
		}
		id, delta := vals.of(in.A.Reg)
		if in.Index != 0 {
			id2, delta2 := vals.of(in.Index)
			if id2 != int(in.Index) {
				id = -1
			}
			delta += delta2
		}
		if id != int(in.A.Reg) || delta != int64(in.B.Const) {
			return fmt.Errorf("loop check %v: %v does not step by %d per iteration", in, in.A, int64(in.B.Const))
		}
	}
	if t := f.Trip; t.Step != 0 {
		id, delta := tvals.of(t.Reg)
		end := t.End.IsConst
		if !end {
			eid, ed := tvals.of(t.End.Reg)
			end = eid == int(t.End.Reg) && ed == 0
		}
		if !tripFound || id != int(t.Reg) || delta != t.Step || !pow2(t.Step) || !end {
			return fmt.Errorf("trip %+v: no exit beq at the bound, or registers that do not step as it says", t)
		}
	}
	return nil
}

// verifyBoxCheck checks that the loop writes the f registers of a box
// check's mask only with single results, which keep them boxed.
func verifyBoxCheck(f *Func, mask uint32) error {
	for i := range f.Insts {
		in := &f.Insts[i]
		if !IsFloat(in.Op) {
			continue
		}
		if d, _, _, _ := FloatUses(in.Op); d && mask&(1<<in.F.D) != 0 && !SingleResult(in.Op) {
			return badInst(i, in, "writes %s, which the box check covers, with no single", interp.FRegName(in.F.D))
		}
	}
	return nil
}

// verifyFrmHoisted checks that a loop whose OpFrm runs on entry writes
// neither frm nor fcsr, and has no other OpFrm.
func verifyFrmHoisted(f *Func) error {
	for i := range f.Insts {
		in := &f.Insts[i]
		if in.Op == OpFrm || IsCSRWrite(in.Op) && (in.Off == interp.CSRFrm || in.Off == interp.CSRFcsr) {
			return badInst(i, in, "the rounding mode is checked on entry, but this changes or checks it again")
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
