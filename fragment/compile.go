// Trace compiler driver: interp.Trace -> Code (x86-64 bytes plus exit records).

package fragment

import (
	"errors"
	"fmt"

	"github.com/twitchyliquid64/golang-asm/obj"
	"github.com/twitchyliquid64/golang-asm/obj/x86"

	"rvdyn/interp"
)

// Env describes the guest the code is compiled for: the memory limits every
// emitted load and store checks against (see interp.Memory). A load may
// access [ReadLo, GuardLo) and [GuardHi, MemSize), a store [WriteLo,
// GuardLo) and [GuardHi, MemSize); the guard gap [GuardLo, GuardHi) below
// the stack faults. GuardLo = GuardHi = 0 means no guard gap.
type Env struct {
	ReadLo  uint64 // lowest loadable guest address
	WriteLo uint64 // lowest storable guest address
	MemSize uint64 // size of the guest address space, at most 2 GiB
	GuardLo uint64 // lowest address of the guard gap (the heap's limit)
	GuardHi uint64 // end of the guard gap: the lowest stack address
}

// EnvOf returns the Env of a loaded machine.
func EnvOf(m *interp.Machine) Env {
	lo, hi := m.Mem.Guard()
	return Env{ReadLo: m.Mem.ReadLo(), WriteLo: m.Mem.WriteLo(), MemSize: m.Mem.Size(), GuardLo: lo, GuardHi: hi}
}

// norm returns e with an absent guard gap placed at MemSize, where it is
// empty, so that [lo, GuardLo) and [GuardHi, MemSize) are always the two
// accessible intervals.
func (e Env) norm() Env {
	if e.GuardLo == 0 && e.GuardHi == 0 {
		e.GuardLo, e.GuardHi = e.MemSize, e.MemSize
	}
	return e
}

// inStack reports whether guest address a lies in the stack interval
// [GuardHi, MemSize) of a normalized Env.
func (e Env) inStack(a uint64) bool { return a-e.GuardHi < e.MemSize-e.GuardHi }

// An ExitKind says what the dispatcher does when native code leaves
// through an exit.
type ExitKind uint8

const (
	// ExitBranch continues at a static guest target: an off-trace branch
	// direction or the end of the trace. The code cache may link it.
	ExitBranch ExitKind = iota
	// ExitInterp interprets the instruction at Target, which native code
	// did not execute: a load or store outside guest memory (the
	// interpreter reports the fault), or a jalr to a misaligned target.
	ExitInterp
	// ExitIndirect continues at State.CPU.PC: a jalr whose target was
	// neither the recorded one nor found in the indirect branch lookup
	// table. The jalr has retired.
	ExitIndirect
)

// String names the exit kind.
func (k ExitKind) String() string {
	switch k {
	case ExitBranch:
		return "branch"
	case ExitInterp:
		return "interp"
	case ExitIndirect:
		return "indirect"
	}
	return fmt.Sprintf("ExitKind(%d)", uint8(k))
}

// An Exit is one exit stub of a compiled fragment.
type Exit struct {
	Kind    ExitKind
	Target  uint64 // guest pc where execution continues (0 for ExitIndirect)
	From    uint64 // guest pc of the instruction that leaves
	Retired int    // guest instructions retired from the fragment entry to this exit
	// LinkOff is the offset in Code.Bytes of the rel32 field of the
	// stub's link jump, which falls through to the dispatcher until the
	// code cache patches it to a fragment entry; -1 if the exit is never
	// linked (ExitInterp, or already bound inside the fragment).
	LinkOff int
	// IDOff is the offset in Code.Bytes of the stub's 32-bit exit ID,
	// written by the code cache.
	IDOff int
}

// Code is a compiled fragment: position-independent machine code whose
// entry is at offset 0, and its exits.
type Code struct {
	Head       uint64 // guest pc of the trace head (the fragment's tag)
	Bytes      []byte
	Exits      []Exit
	GuestInsts int   // guest instructions on the recorded path
	SelfLoop   bool  // the trace ends at its own head: the back edge is a native loop
	ir         *Func // the optimized IR, for WriteListing
}

// ErrEmptyTrace is returned for a trace with no instructions.
var ErrEmptyTrace = errors.New("fragment: empty trace")

// exitStub is an exit being emitted: its record and the label of its stub.
type exitStub struct {
	Exit
	at     int // index of the IR instruction that takes it (for the write back)
	stub   *label
	linked *label // for a self-loop back edge: where the link jump goes
	idProg *obj.Prog
	lnProg *obj.Prog
	// ExitIndirect: the jalr's link register and value, and the exit
	// taken for a misaligned target.
	rd         uint8
	link       uint64
	misaligned *exitStub
}

type compiler struct {
	a     *assembler
	env   Env
	f     *Func
	ra    *regAlloc
	loops bool // the trace ends at its own head
	noIBL bool // indirect stubs leave instead of looking up the table
	exits []*exitStub
	body  *label
	cold  []func() // out-of-line code, emitted after the exit stubs
}

// Compile translates a recorded trace into a fragment laid out along the
// recorded path: the trace is lowered to IR (ir.go), optimized by the
// passes opts enables (passes.go), and emitted (emit.go). It returns
// ErrEmptyTrace for an empty trace; any other error means the assembler or
// the IR verifier failed, which is a bug.
func Compile(t *interp.Trace, env Env, opts Options) (code *Code, err error) {
	if len(t.Steps) == 0 {
		return nil, ErrEmptyTrace
	}
	env = env.norm()
	f := lower(t, env)
	if err := optimize(f, opts); err != nil {
		return nil, err
	}
	a, err := newAssembler()
	if err != nil {
		return nil, err
	}
	c := &compiler{a: a, env: env, f: f, body: &label{}, loops: f.Loops, noIBL: opts.NoIBL}
	c.ra = allocate(f, !opts.NoRegAlloc)
	// Entry: load the allocated guest registers.
	for r := uint8(1); r < 32; r++ {
		if c.ra.needsLoad(r, c.loops) {
			a.op(x86.AMOVQ, mem(rSt, regOff(r)), reg(c.ra.host[r]))
		}
	}
	a.bind(c.body)
	last := len(f.Insts) - 1
	for i, in := range f.Insts[:last] {
		c.inst(i, in)
	}
	// The end stub is emitted first, right here: the recorded path falls
	// through into it.
	end := c.stubFor(f.Insts[last].Exit, last)
	if f.Loops {
		end.linked = c.body
		end.LinkOff = -1
	}
	copy(c.exits[1:], c.exits[:len(c.exits)-1])
	c.exits[0] = end
	for _, e := range c.exits {
		c.emitStub(e)
	}
	for _, emit := range c.cold {
		emit()
	}
	bytes, err := a.assemble()
	if err != nil {
		return nil, err
	}
	code = &Code{Head: t.Head, Bytes: bytes, GuestInsts: len(t.Steps), SelfLoop: f.Loops, ir: f}
	for _, e := range c.exits {
		x := e.Exit
		x.IDOff = int(e.idProg.Pc) + 7
		if e.lnProg != nil {
			x.LinkOff = int(e.lnProg.Pc) + 1
		}
		code.Exits = append(code.Exits, x)
	}
	return code, nil
}

// stubFor creates the stub of IR exit e, taken by instruction at; its
// code is emitted after the body.
func (c *compiler) stubFor(e, at int) *exitStub {
	r := c.f.Exits[e]
	s := &exitStub{Exit: r.Exit, at: at, stub: &label{}}
	c.exits = append(c.exits, s)
	if r.Kind == ExitIndirect {
		s.rd, s.link = r.link, r.linkVal
		s.misaligned = c.stubFor(r.alt, at)
	}
	return s
}

// emitStub emits an exit stub:
//
//	stub: MOVQ host, X[r](R15) ...     ; write back dirty guest registers
//	      SUBQ $retired, R12           ; charge the instructions (R12 = budget)
//	      JLE  out                     ; poll point: budget spent
//	      JMP  rel32                   ; link jump (0 = fall through)
//	out:  MOVL $id, Exit(R15)
//	      RET
//
// The back edge of a fragment that loops to its own head needs no write
// back: "SUBQ $retired, R12; JGT body" jumps past the entry loads, with
// every register in place, and falls into the write-back and out when
// the budget is spent.
func (c *compiler) emitStub(e *exitStub) {
	if e.Kind == ExitIndirect {
		c.emitIndirectStub(e)
		return
	}
	a := c.a
	a.bind(e.stub)
	out := &label{}
	if e.linked == nil {
		for _, r := range c.ra.dirty(e.at, c.loops) {
			a.op(x86.AMOVQ, reg(c.ra.host[r]), mem(rSt, regOff(r)))
		}
	}
	if e.Retired > 0 {
		a.op(x86.ASUBQ, imm(int64(e.Retired)), reg(rBudget))
		switch {
		case e.linked != nil:
			a.jump(x86.AJGT, e.linked) // the back edge: loop while budget is left
		case e.Kind == ExitBranch:
			a.jump(x86.AJLE, out)
		}
	}
	switch {
	case e.linked != nil:
	case e.Kind == ExitBranch:
		e.lnProg = a.raw(0xe9)
		a.raw32(0)
	}
	a.bind(out)
	if e.linked != nil {
		// The budget ran out on the back edge: write back before leaving.
		for _, r := range c.ra.dirty(e.at, c.loops) {
			a.op(x86.AMOVQ, reg(c.ra.host[r]), mem(rSt, regOff(r)))
		}
	}
	e.idProg = a.raw(0x41, 0xc7, 0x87) // MOVL $imm32, disp32(R15)
	a.raw32(offExit)
	a.raw32(0) // exit ID, patched by the code cache
	a.op(obj.ARET, none, none)
}

// emitIndirectStub emits the stub of a jalr whose target (in AX) is not
// the recorded one: it completes the jalr in State, charges the budget and
// looks the target up in the indirect branch lookup table, jumping
// straight to the fragment found there (DynamoRIO's IBL):
//
//	stub: TESTL $3, AX ; JNE misaligned      ; let the interpreter fault
//	      MOVQ host, X[r](R15) ...           ; write back dirty registers
//	      MOVQ $pc+4, X[rd](R15)             ; the link register
//	      SUBQ $retired, R12 ; JLE out       ; poll point
//	      CX = IBL + ((AX >> 2) & mask) * 16
//	      CMPQ (CX), AX ; JNE out            ; an empty slot's tag never matches
//	      JMP 8(CX)
//	out:  MOVQ AX, PC(R15) ; MOVL $id, Exit(R15) ; RET
//
// The alignment test comes first so that only multiples of 4 are looked
// up, which an empty slot's odd tag (IBLEmpty) cannot equal: target 0 is
// a miss like any other. With Options.NoIBL the stub has no lookup (from
// the SUBQ it charges and leaves).
func (c *compiler) emitIndirectStub(e *exitStub) {
	a := c.a
	a.bind(e.stub)
	out := &label{}
	a.op(x86.ATESTL, imm(3), reg(rAX))
	a.jump(x86.AJNE, e.misaligned.stub)
	for _, r := range c.ra.dirty(e.at, c.loops) {
		a.op(x86.AMOVQ, reg(c.ra.host[r]), mem(rSt, regOff(r)))
	}
	if e.rd != 0 {
		if int64(e.link) == int64(int32(e.link)) {
			a.op(x86.AMOVQ, imm(int64(e.link)), mem(rSt, regOff(e.rd)))
		} else {
			a.op(x86.AMOVQ, imm(int64(e.link)), reg(rCX))
			a.op(x86.AMOVQ, reg(rCX), mem(rSt, regOff(e.rd)))
		}
	}
	a.op(x86.ASUBQ, imm(int64(e.Retired)), reg(rBudget))
	if c.noIBL {
		c.leaveIndirect(e)
		return
	}
	a.jump(x86.AJLE, out)
	a.op(x86.AMOVQ, reg(rAX), reg(rCX))
	a.op(x86.ASHRQ, imm(2), reg(rCX))
	a.op(x86.AANDL, imm(IBLEntries-1), reg(rCX))
	a.op(x86.ASHLQ, imm(4), reg(rCX))
	a.op(x86.AADDQ, mem(rSt, offIBL), reg(rCX))
	a.op(x86.ACMPQ, mem(rCX, 0), reg(rAX))
	a.jump(x86.AJNE, out)
	a.op(obj.AJMP, none, mem(rCX, 8))
	a.bind(out)
	c.leaveIndirect(e)
}

// leaveIndirect emits the way out of an indirect stub: the target (AX)
// becomes the guest pc, and the stub returns with its exit ID.
func (c *compiler) leaveIndirect(e *exitStub) {
	a := c.a
	a.op(x86.AMOVQ, reg(rAX), mem(rSt, offPC))
	e.idProg = a.raw(0x41, 0xc7, 0x87) // MOVL $imm32, disp32(R15)
	a.raw32(offExit)
	a.raw32(0)
	a.op(obj.ARET, none, none)
}
