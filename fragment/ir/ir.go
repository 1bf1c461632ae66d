// Fragment IR: interp.Trace -> Func, a straight list of instructions over guest registers and constants with explicit exits.

package ir

import (
	"fmt"
	"math/bits"
	"strings"

	"rvdyn/fragment/exit"
	"rvdyn/interp"
	"rvdyn/profhw/rpa"
)

// The IR is what the optimizer passes work on and what the emitter lowers
// to x86-64. It is deliberately close to RISC-V:
//
//   - An instruction reads at most two values (A, B) and writes at most one
//     guest register (Dst). A value is a guest register (x1..x31) or a
//     64-bit constant; x0 is always the constant 0.
//   - ALU ops use interp.Op with one opcode per operation: the immediate
//     forms are lowered to the register forms with a constant B (addi ->
//     add, slliw -> sllw, ...), so interp.ALU is the folding semantics.
//   - A conditional branch becomes a guard: "exit if op(A, B)". Its op is
//     already negated when the recorded direction was the taken one.
//   - Loads (Dst = mem[A+Off]) and stores (mem[A+Off] = B) carry the exit
//     taken when the address is out of bounds, or no exit (Exit < 0) when
//     the address is a constant proven in bounds at compile time or an
//     earlier check covers it (a widened check, Cover, off the same base
//     value, a self-loop's entry check in Func.Pre, or an OpCheck of a
//     base value plus a bounded index, see CheckRange).
//   - The last instruction is always OpExit, the end of the trace.
//
// Invariants the passes keep (checked by verify): the exits appear in
// trace order with their retired counts unchanged; at every exit the guest
// registers and memory hold exactly what the interpreter would have after
// Retired instructions. A pass may therefore rewrite how a value is
// computed, but never which value a guest register or memory holds at an
// exit.

// Pseudo ops the IR adds to interp's operations.
const (
	OpMov    = interp.NumOps + iota // Dst = A
	OpZext8                         // Dst = uint8(A)
	OpZext16                        // Dst = uint16(A)
	OpZext32                        // Dst = uint32(A)
	OpSext8                         // Dst = int8(A)
	OpSext16                        // Dst = int16(A)
	OpSext32                        // Dst = int32(A)
	// OpRor is Dst = A rotated right by the constant B (1..63 bits);
	// OpRorW is Dst = int32(uint32(A) rotated right by the constant B
	// (1..31 bits)), sign-extended as RV64's W ops are. RV64 without Zbb
	// has no rotation: gcc builds one from two shifts and an or, and the
	// Rotate pass finds them (ir/rotate.go).
	OpRor
	OpRorW
	OpExit // leave through Exit, unconditionally
	// OpSample is the relational profiler's sampling decision for the
	// instruction at PC (RPA sec. 3.4.2): countdown Off (an index into
	// State.Countdown) says how many more selected executions until the
	// next sample, 1 meaning this one. If it is 1, leave through Exit
	// (exit.Sample, before the instruction retires); else decrement it.
	// With Native set, a sampled execution builds its record, runs its
	// query and sends natively, and leaves through Exit only when that
	// cannot be done (no gap drawn ahead, a queue full, a store's address
	// out of bounds), with nothing committed.
	OpSample
	// OpLoopCheck, only in Func.Pre, is the bounds check of every access
	// off one base value in every iteration of a self-loop (see
	// CheckHoist): register A at the head steps by the constant B each
	// iteration (0: not at all), and Cover gives the offsets accessed off
	// its value at the head of an iteration. With a step it uses
	// Func.Trip to bound the iterations. If the check fails it leaves
	// through Exit, before the first instruction, with nothing done.
	OpLoopCheck
	// OpCheck is a standalone bounds check (see CheckRange): the start
	// addresses A+Cover.Lo .. A+Cover.Hi lie in one accessible interval,
	// for stores too if Cover.Store, else it leaves through Exit (an
	// interpreter exit at PC, before the access it precedes).
	OpCheck
	// OpFrm installs frm as the host's rounding mode for the
	// instructions of the Func that round by the dynamic mode (RM 7),
	// before the first of them and the first after a write of frm or
	// fcsr; if frm holds a mode the host lacks (rmm, or a reserved one,
	// an illegal instruction) it leaves through Exit (an interpreter exit
	// at PC, before that instruction). Native code keeps the host's mode
	// equal to frm whenever frm holds rne, rtz, rdn or rup: a write of
	// frm in native code installs it at once.
	OpFrm
	// OpBoxCheck, only in Func.Pre, checks on entry that the f
	// registers of mask Off hold NaN-boxed singles (see BoxCheck); if
	// one does not it leaves through Exit, before the first
	// instruction, with nothing done.
	OpBoxCheck
	// OpShAdd is Dst = A<<Scale + B + Off (Scale 0..3): RV64's
	// "slli t,x,k ; add d,t,b" (Zba's sh1add..sh3add), with a constant
	// folded in, which x86-64 computes in one LEA (see ShAdd).
	OpShAdd
	numIROps
)

var pseudoNames = [...]string{"mov", "zext.b", "zext.h", "zext.w", "sext.b", "sext.h", "sext.w", "ror", "rorw", "exit", "sample", "loopcheck", "check", "frm", "boxcheck", "shadd"}

func opName(op interp.Op) string {
	if op >= interp.NumOps && op < numIROps {
		return pseudoNames[op-interp.NumOps]
	}
	return op.String()
}

// A Val is an operand: a guest register or a constant. The zero Val is
// no operand (x0 reads as the constant 0, never as a register).
type Val struct {
	Reg     uint8 // guest register 1..31 when !IsConst
	IsConst bool
	Const   uint64
}

// R returns the value of guest register r (the constant 0 for x0).
func R(r uint8) Val {
	if r == 0 {
		return C(0)
	}
	return Val{Reg: r}
}

// C returns the constant v.
func C(v uint64) Val { return Val{IsConst: true, Const: v} }

// IsReg reports whether v reads guest register r.
func (v Val) IsReg(r uint8) bool { return !v.IsConst && v.Reg == r && r != 0 }

func (v Val) String() string {
	if v.IsConst {
		if int64(v.Const) < 0 && int64(v.Const) > -1<<20 {
			return fmt.Sprint(int64(v.Const))
		}
		if v.Const < 1<<16 {
			return fmt.Sprint(v.Const)
		}
		return fmt.Sprintf("%#x", v.Const)
	}
	return interp.RegName(v.Reg)
}

// An Inst is one IR instruction.
type Inst struct {
	Op   interp.Op // an interp ALU/M, load, store, branch or jalr op, or a pseudo op
	Dst  uint8     // guest register written; 0 if none
	A, B Val       // operands: rs1 (or the base) and rs2 (or the immediate, or the stored value)
	Off  int64     // loads and stores: address offset; jalr: immediate
	// Exit is the index in Func.Exits of the exit this instruction may
	// take, -1 if none.
	Exit int
	PC   uint64 // guest pc of the instruction it came from
	Step int    // index of the trace step it came from: instructions retired before it
	Len  uint8  // length in bytes of the guest instruction it came from (2 or 4)
	// Stack marks a load or store whose recorded address was in the
	// stack: its bounds check tries the stack interval first.
	Stack bool
	// Mapped marks one whose recorded address was in the mappings'
	// interval (Env.InMapped): its check tries that interval first.
	Mapped bool
	// Index, on an OpLoopCheck, is a second base register (0: none): the
	// accesses checked are off the sum of A's and Index's values at the
	// head (CheckHoist's derived bases), which steps by B.
	Index uint8
	// Scale, on an OpShAdd, is the shift of A (0..3).
	Scale uint8
	// Cover, on a load or store with an exit, widens its bounds check to
	// a range of addresses off the same base (see CheckWiden); the zero
	// Cover is the ordinary check of the access's own address.
	Cover Cover
	// Native, on an OpSample, describes the record and query native
	// code runs for the sampled execution (RPA sec. 3.4.2); A and B are
	// then the instruction's rs1 and rs2. Nil: the sampled execution
	// leaves through Exit.
	Native *rpa.Native
	// F, on a floating-point instruction (IsFloat), holds its f register
	// operands and rounding mode.
	F FloatArgs
}

// A Cover is a widened bounds check: the check of the access that
// carries it passes only if every start address A+Lo .. A+Hi (inclusive,
// A the access's base value) lies in one accessible interval of Env,
// the store intervals if Store, else the load intervals. The access's own
// address A+Off is among them (Lo <= Off <= Hi). Later accesses off the
// same base value with offsets in [Lo, Hi] need no check of their own.
// Like the interpreter, a check looks at an access's first byte only;
// the slack page past each interval absorbs the rest.
type Cover struct {
	Lo, Hi int64
	Store  bool
}

// Widened reports whether c widens a check (is not the zero Cover).
func (c Cover) Widened() bool { return c != Cover{} }

// IsALU reports whether op is an ALU or M-extension op (register forms).
func IsALU(op interp.Op) bool { return op >= interp.OpADD && op <= interp.OpREMUW }

// IsExt reports whether op is a zero- or sign-extension pseudo op.
func IsExt(op interp.Op) bool { return op >= OpZext8 && op <= OpSext32 }

// IsRot reports whether op is a rotation pseudo op (OpRor, OpRorW).
func IsRot(op interp.Op) bool { return op == OpRor || op == OpRorW }

// Rotated returns what rotation op (OpRor or OpRorW) computes from a and
// the rotation amount k.
func Rotated(op interp.Op, a, k uint64) uint64 {
	if op == OpRorW {
		return uint64(int64(int32(bits.RotateLeft32(uint32(a), -int(k&31)))))
	}
	return bits.RotateLeft64(a, -int(k&63))
}

// IsLoad reports whether op is a load.
func IsLoad(op interp.Op) bool { return op >= interp.OpLB && op <= interp.OpLWU }

// IsStore reports whether op is a store.
func IsStore(op interp.Op) bool { return op >= interp.OpSB && op <= interp.OpSD }

// IsAccess reports whether op is a load or a store, integer or
// floating-point: an access to guest memory behind a bounds check.
func IsAccess(op interp.Op) bool {
	return IsLoad(op) || IsStore(op) || IsFloatLoad(op) || IsFloatStore(op)
}

// writesMemory reports whether op is a store, integer or floating-point.
func writesMemory(op interp.Op) bool { return IsStore(op) || IsFloatStore(op) }

// IsGuard reports whether op is a guard (a conditional branch op).
func IsGuard(op interp.Op) bool { return op >= interp.OpBEQ && op <= interp.OpBGEU }

// pure reports whether the instruction only computes Dst: removing it
// changes nothing but Dst.
func (in *Inst) pure() bool {
	return in.Exit < 0 && (in.Op == OpMov || IsExt(in.Op) || IsRot(in.Op) || IsALU(in.Op) || in.Op == OpShAdd || IsLoad(in.Op))
}

// Width returns the size in bytes of a load or store.
func Width(op interp.Op) int64 {
	switch op {
	case interp.OpLB, interp.OpLBU, interp.OpSB:
		return 1
	case interp.OpLH, interp.OpLHU, interp.OpSH:
		return 2
	case interp.OpLW, interp.OpLWU, interp.OpSW, interp.OpFLW, interp.OpFSW:
		return 4
	}
	return 8
}

// Reads calls f for each guest register the instruction reads.
func (in *Inst) Reads(f func(r uint8)) {
	if !in.A.IsConst && in.A.Reg != 0 {
		f(in.A.Reg)
	}
	if !in.B.IsConst && in.B.Reg != 0 {
		f(in.B.Reg)
	}
}

func (in Inst) String() string {
	var b strings.Builder
	if in.Dst != 0 {
		fmt.Fprintf(&b, "%s = ", interp.RegName(in.Dst))
	}
	switch op := in.Op; {
	case IsLoad(op):
		fmt.Fprintf(&b, "%v %d(%v)", op, in.Off, in.A)
	case IsStore(op):
		fmt.Fprintf(&b, "%v %v, %d(%v)", op, in.B, in.Off, in.A)
	case IsGuard(op):
		fmt.Fprintf(&b, "exit %d if %v %v, %v", in.Exit, op, in.A, in.B)
		return b.String()
	case op == interp.OpJALR:
		fmt.Fprintf(&b, "jalr %d(%v) == %#x else exit %d", in.Off, in.A, in.B.Const, in.Exit)
		return b.String()
	case op == OpExit:
		fmt.Fprintf(&b, "exit %d", in.Exit)
		return b.String()
	case op == OpFrm:
		fmt.Fprintf(&b, "round by frm, exit %d if the host cannot", in.Exit)
	case IsAtomic(op):
		fmt.Fprintf(&b, "%v %v, (%v)  ; else exit %d", op, in.B, in.A, in.Exit)
		return b.String()
	case IsCSRRead(op):
		fmt.Fprintf(&b, "csr %s", interp.CSRName(uint16(in.Off)))
	case IsCSRWrite(op):
		fmt.Fprintf(&b, "csr %s, %s = %v", interp.CSRName(uint16(in.Off)), interp.CSRName(uint16(in.Off)), in.A)
		return b.String()
	case IsFloat(op):
		b.WriteString(in.floatString())
	case op == OpSample:
		fmt.Fprintf(&b, "sample countdown %d else exit %d", in.Off, in.Exit)
		return b.String()
	case op == OpLoopCheck:
		kind := "load"
		if in.Cover.Store {
			kind = "store"
		}
		base := in.A.String()
		if in.Index != 0 {
			base += "+" + R(in.Index).String()
		}
		fmt.Fprintf(&b, "loopcheck %s %d..%d(%s) stepping %d else exit %d", kind, in.Cover.Lo, in.Cover.Hi, base, int64(in.B.Const), in.Exit)
		return b.String()
	case op == OpBoxCheck:
		b.WriteString("boxcheck")
		for r := 0; r < 32; r++ {
			if in.Off&(1<<r) != 0 {
				fmt.Fprintf(&b, " %s", interp.FRegName(uint8(r)))
			}
		}
		fmt.Fprintf(&b, " else exit %d", in.Exit)
		return b.String()
	case op == OpCheck:
		kind := "load"
		if in.Cover.Store {
			kind = "store"
		}
		fmt.Fprintf(&b, "check %s %d..%d(%v)  ; else exit %d", kind, in.Cover.Lo, in.Cover.Hi, in.A, in.Exit)
		return b.String()
	case op == OpMov || IsExt(op):
		fmt.Fprintf(&b, "%s %v", opName(op), in.A)
	case IsRot(op):
		fmt.Fprintf(&b, "%s %v, %v", opName(op), in.A, in.B)
	case op == OpShAdd:
		fmt.Fprintf(&b, "shadd %v<<%d, %v", in.A, in.Scale, in.B)
		if in.Off != 0 {
			fmt.Fprintf(&b, ", %d", in.Off)
		}
	default:
		fmt.Fprintf(&b, "%v %v, %v", op, in.A, in.B)
	}
	if in.Exit >= 0 {
		fmt.Fprintf(&b, "  ; else exit %d", in.Exit)
	}
	if in.Cover.Widened() {
		kind := "load"
		if in.Cover.Store {
			kind = "store"
		}
		fmt.Fprintf(&b, " ; %s check %d..%d(%v)", kind, in.Cover.Lo, in.Cover.Hi, in.A)
	}
	return b.String()
}

// An Exit is an exit of the IR: the record every layer shares
// (exit.Record) plus what the emitter needs for an indirect jump.
type Exit struct {
	exit.Record
	Link    uint8  // exit.Indirect: the jalr's rd, written by the stub
	LinkVal uint64 // exit.Indirect: the value rd gets (the jalr's pc + its length)
}

func (e Exit) String() string {
	return fmt.Sprintf("%v from %#x to %#x after %d", e.Kind, e.From, e.Target, e.Retired)
}

// A Func is one trace in IR form.
type Func struct {
	Head  uint64 // guest pc of the trace head
	Insts []Inst // in trace order; the last is the end exit (OpExit)
	Exits []Exit // indexed by Inst.Exit, in trace order
	Guest int    // guest instructions on the recorded path
	Loops bool   // the final exit continues at Head: the emitter makes it a back edge
	// Pre, in a Func that Loops, are the OpLoopChecks run once on entry,
	// before the first iteration, then at most one OpBoxCheck and one
	// OpFrm (FrmHoist); the back edge jumps past them. In a Func that
	// does not loop, Pre is at most one OpBoxCheck (BoxCheckLine).
	Pre []Inst
	// Trip, in a Func that Loops, bounds the iterations run after an
	// entry when its Step is not 0 (see Trip).
	Trip Trip
	// Sunk, in a Func that Loops, are the instructions SinkToExits took
	// out of the body, which the exit stubs after them compute.
	Sunk []Sunk
	env  Env
}

// A Trip is the exit test that bounds a self-loop's iterations: the guard
// "exit if beq X, End" in the body, where X is register Reg's value at
// the head plus Delta, Reg steps by Step (a power of two, either sign)
// each iteration, and End is a constant or a register the loop does not
// change. Iteration k (from 0 at the entry) reaches the guard with
// X = Reg+Delta+k*Step, so no iteration after the first k with
// Reg+Delta+k*Step == End runs, and if End-Reg-Delta is not a multiple of
// Step there is no bound.
//
// W marks a trip of 32-bit arithmetic, C's int counter ("addiw a3, a5,
// 1; ... bne a3, a6"): X and Reg's next value come from Reg's value by
// 32-bit additions of constants (addw, sign-extending) and moves only,
// so iteration k reaches the guard with X a sign-extended 32-bit value
// congruent to Reg+Delta+k*Step modulo 2^32 (X is Reg itself, not
// extended, only at k = 0 when the chain is moves alone). The entry
// checks that End is a sign-extended 32-bit value; then a K in
// [0, 2^31) from the 64-bit formula above makes X == End at iteration
// K at the latest (at 0 exactly when Reg+Delta == End), so the bound
// holds: the loop may leave earlier, never later. Reg itself needs no
// check: a start outside 32 bits is as far from End modulo 2^32.
type Trip struct {
	Reg   uint8
	Delta int64
	Step  int64
	End   Val
	W     bool
}

// Env returns the guest memory limits f was lowered for, normalized
// (see Env.Norm).
func (f *Func) Env() Env { return f.env }

func (f *Func) String() string {
	var b strings.Builder
	if f.Trip.Step != 0 {
		w := ""
		if f.Trip.W {
			w = " (32-bit)"
		}
		fmt.Fprintf(&b, "  trip: %v steps by %d, exit when %v%+d == %v%s\n", interp.RegName(f.Trip.Reg), f.Trip.Step, interp.RegName(f.Trip.Reg), f.Trip.Delta, f.Trip.End, w)
	}
	for _, in := range f.Pre {
		fmt.Fprintf(&b, "  %8s      %v\n", "entry", in)
	}
	for _, s := range f.Sunk {
		fmt.Fprintf(&b, "  %8x      %v  ; sunk: in the exit stubs of instruction %d on\n", s.Inst.PC, s.Inst, s.At)
	}
	for _, in := range f.Insts {
		fmt.Fprintf(&b, "  %8x %3d  %v\n", in.PC, in.Step, in)
	}
	for i, e := range f.Exits {
		fmt.Fprintf(&b, "  exit %d: %v\n", i, e)
	}
	return b.String()
}

// newExit appends an exit record and returns its index.
func (f *Func) newExit(kind exit.Kind, target, from uint64, retired int) int {
	f.Exits = append(f.Exits, Exit{Record: exit.Record{Kind: kind, Target: target, From: from, Retired: retired}})
	return len(f.Exits) - 1
}

// immOps maps the register-immediate ALU ops to their register-register
// forms.
var immOps = map[interp.Op]interp.Op{
	interp.OpADDI: interp.OpADD, interp.OpSLTI: interp.OpSLT, interp.OpSLTIU: interp.OpSLTU,
	interp.OpXORI: interp.OpXOR, interp.OpORI: interp.OpOR, interp.OpANDI: interp.OpAND,
	interp.OpSLLI: interp.OpSLL, interp.OpSRLI: interp.OpSRL, interp.OpSRAI: interp.OpSRA,
	interp.OpADDIW: interp.OpADDW, interp.OpSLLIW: interp.OpSLLW, interp.OpSRLIW: interp.OpSRLW,
	interp.OpSRAIW: interp.OpSRAW,
}

// negated maps a branch op to the op of its opposite condition.
var negated = map[interp.Op]interp.Op{
	interp.OpBEQ: interp.OpBNE, interp.OpBNE: interp.OpBEQ,
	interp.OpBLT: interp.OpBGE, interp.OpBGE: interp.OpBLT,
	interp.OpBLTU: interp.OpBGEU, interp.OpBGEU: interp.OpBLTU,
}

// Lower translates a recorded trace into IR, one step at a time, with no
// optimization.
func Lower(t *interp.Trace, env Env) *Func { return LowerSampled(t, env, nil) }

// A Sampler tells the lowering which instructions the relational
// profiler selects: countdown is the index of the sampling countdown in
// State.Countdown that the instruction at pc decrements, ok false for
// an instruction it does not select.
type Sampler func(pc uint64, in interp.Inst) (countdown int, native *rpa.Native, ok bool)

// LowerSampled is Lower with the relational profiler's selection: every
// instruction sample selects is preceded by an OpSample on its countdown,
// which leaves through an exit.Sample exit at that instruction when it is
// sampled. A nil sample gives Lower's IR.
func LowerSampled(t *interp.Trace, env Env, sample Sampler) *Func {
	env = env.Norm()
	// Room for about one IR instruction per guest instruction (and an
	// exit each for branches and accesses): growing the slices by
	// appending was a third of what compiling a fragment allocates.
	n := len(t.Steps)
	f := &Func{Head: t.Head, Guest: n, env: env, Insts: make([]Inst, 0, n+n/4+2), Exits: make([]Exit, 0, n/2+2)}
	frmGuarded := false // an OpFrm precedes the first dynamic rounding
	emit := func(in Inst) { f.Insts = append(f.Insts, in) }
	for i, s := range t.Steps {
		in, pc := s.Inst, s.PC
		next := pc + in.Len() // the fall-through
		base := Inst{PC: pc, Step: i, Exit: -1, Len: uint8(in.Len())}
		if sample != nil {
			if k, nv, ok := sample(pc, in); ok {
				if !in.Op.IsBase() {
					nv = nil // native records know the base ISA's operands; the query engine runs the others
				}
				x := base
				x.Op, x.Off, x.Exit = OpSample, int64(k), f.newExit(exit.Sample, pc, pc, i)
				if nv != nil {
					x.Native, x.A, x.B = nv, R(in.Rs1), R(in.Rs2)
				}
				emit(x)
			}
		}
		mov := func(rd uint8, v uint64) {
			if rd != 0 {
				x := base
				x.Op, x.Dst, x.A = OpMov, rd, C(v)
				emit(x)
			}
		}
		x := base
		switch op := in.Op; {
		case op == interp.OpLUI:
			mov(in.Rd, uint64(in.Imm))
		case op == interp.OpAUIPC:
			mov(in.Rd, pc+uint64(in.Imm))
		case op == interp.OpJAL:
			mov(in.Rd, next)
		case op == interp.OpJALR:
			x.Op, x.A, x.Off, x.B = op, R(in.Rs1), in.Imm, C(s.Next)
			x.Exit = f.newExit(exit.Indirect, 0, pc, i+1)
			e := &f.Exits[x.Exit]
			e.Link, e.LinkVal = in.Rd, next
			emit(x)
			mov(in.Rd, next)
		case op.IsFloat() && FloatCompiles(in): // before the loads and stores: flw, fsd, ... are of their classes
			f.lowerFloat(x, in, s.Addr, i, &frmGuarded)
		case CSRCompiles(in):
			f.lowerCSR(x, in, &frmGuarded)
		case IsAtomic(op):
			f.lowerAtomic(x, in)
		case op.IsFloat(): // the rest of the trace is left to the interpreter
			x.Op, x.Exit = OpExit, f.newExit(exit.Interp, pc, pc, i)
			emit(x)
			return f
		case in.IsBranch():
			target := pc + uint64(in.Imm)
			if target == next {
				break // both directions continue at the next instruction
			}
			x.A, x.B = R(in.Rs1), R(in.Rs2)
			switch {
			case s.Next == target: // recorded taken: leave when not taken
				x.Op, x.Exit = negated[op], f.newExit(exit.Branch, next, pc, i+1)
			default:
				x.Op, x.Exit = op, f.newExit(exit.Branch, target, pc, i+1)
			}
			emit(x)
		case op.Class() == interp.ClassLoad:
			x.Op, x.Dst, x.A, x.Off = op, in.Rd, R(in.Rs1), in.Imm
			x.Exit, x.Stack = f.newExit(exit.Interp, pc, pc, i), env.InStack(s.Addr)
			x.Mapped = !x.Stack && env.InMapped(s.Addr, false)
			emit(x)
		case op.Class() == interp.ClassStore:
			x.Op, x.A, x.B, x.Off = op, R(in.Rs1), R(in.Rs2), in.Imm
			x.Exit, x.Stack = f.newExit(exit.Interp, pc, pc, i), env.InStack(s.Addr)
			x.Mapped = !x.Stack && env.InMapped(s.Addr, true)
			emit(x)
		case op == interp.OpFENCE:
		case op >= interp.OpADDI && op <= interp.OpREMUW:
			if in.Rd == 0 {
				break
			}
			x.Op, x.Dst, x.A, x.B = op, in.Rd, R(in.Rs1), R(in.Rs2)
			if r, ok := immOps[op]; ok {
				x.Op, x.B = r, C(uint64(in.Imm))
			}
			emit(x)
		default:
			// ecall, ebreak, fence.i, illegal, CSR and A: the recorder
			// ends traces before these. The floating-point instructions
			// FloatCompiles refuses are recorded (they end no trace), so
			// the fragment ends before them and leaves to the interpreter.
			x.Op, x.Exit = OpExit, f.newExit(exit.Interp, pc, pc, i)
			emit(x)
			return f
		}
	}
	last := t.Steps[len(t.Steps)-1]
	f.Loops = t.End == t.Head
	emit(Inst{Op: OpExit, PC: last.PC, Step: len(t.Steps), Exit: f.newExit(exit.Branch, t.End, last.PC, len(t.Steps))})
	return f
}
