// Profiling hook: selected instructions -> Event records for a profiler.

package interp

// An Event describes one retired instruction for a profiling hook. Fields
// that do not apply to the instruction's class are zero.
type Event struct {
	PC    uint64 // guest address of the instruction
	Inst  Inst   // the decoded instruction
	Class Class  // Inst.Op.Class(), precomputed
	// Next is the address of the next instruction executed: the branch or
	// jump target when control transferred, pc+4 otherwise.
	Next uint64
	// Taken is true for a conditional branch that was taken and for every
	// jal and jalr.
	Taken bool
	// Addr is the effective address of a load or store.
	Addr uint64
	// Value is the value loaded (after extension), the value stored
	// (truncated to the access width), the result written to rd for
	// ALU and multiply/divide instructions, or a0 after an ecall.
	Value uint64
	// Src1 and Src2 are the values of rs1 and rs2 before the instruction
	// executed (zero for a register field the format does not have); for
	// an ecall, a7 (the system call number) and a0 (its first argument).
	// The relational profiler's records read them (profhw/rpa).
	Src1, Src2 uint64
	// Seq is the number of instructions the machine had retired before
	// this one: its position in the run, the clock of the relational
	// profiler's cost model.
	Seq uint64
}

// A Hook receives one Event per selected instruction, after the instruction
// retired. The Event is owned by the interpreter and reused: a hook that
// keeps it must copy it. A hook must not call back into the Machine.
type Hook interface {
	Event(e *Event)
}

// A Skipper is a Hook that samples: of the executions of a class it
// selects, it acts on one now and then and only counts down the others.
// SkipCountdown returns its countdown for class c (the executions of c
// until the next one it must see, 1 meaning the next), or nil when it
// must see every execution of c now (its class is tagged, it has work
// pending at the next Event). The interpreter may then retire an
// execution of c without calling Event, decrementing the countdown
// instead, while the countdown is above 1; it asks again after each
// Event it delivers. Only conditional branches are skipped so (the
// relational profiler's edge query: runHookedRuns).
type Skipper interface {
	Hook
	SkipCountdown(c Class) *uint64
}

// HookFunc adapts a function to the Hook interface.
type HookFunc func(e *Event)

// Event calls f(e).
func (f HookFunc) Event(e *Event) { f(e) }

// Profile tags (relational profiling paper, sec. 3.1: "a two-bit profile
// tag per instruction in the program binary"). A guest tags the
// instruction at pc with t (0..3) by placing the HINT instruction
// TagHint(t), `slti zero, zero, TagHintImm+t`, at pc-4. The RISC-V ISA
// designates SLTI with rd = x0 as a HINT for custom use: it writes only x0,
// so the interpreter, the fragment compiler and qemu-riscv64 all execute it
// as a no-op. The tag is a property of pc alone, whichever way control
// reaches pc; the HINT itself is an ordinary opALU instruction (untagged
// unless a HINT precedes it too). An instruction without the HINT before
// it has tag 0.
const TagHintImm = 0x7fc

// TagHint returns the instruction word that tags the next instruction
// with t (t & 3).
func TagHint(t uint8) uint32 {
	// I-type: imm[11:0] rs1=0 funct3=010 (slti) rd=0 opcode=0010011.
	return uint32(TagHintImm+uint32(t&3))<<20 | 0b010<<12 | 0b0010011
}

// HintTag returns the tag a decoded instruction assigns to the instruction
// after it, and false if it is not a tag HINT.
func HintTag(in Inst) (uint8, bool) {
	if in.Op != OpSLTI || in.Rd != 0 || in.Rs1 != 0 || in.Imm&^3 != TagHintImm {
		return 0, false
	}
	return uint8(in.Imm & 3), true
}

// ProfileTag returns the profile tag of the instruction at pc: the tag of
// the HINT at pc-4 if there is one, else 0. It reads the predecoded text,
// which is the per-pc cache of the rule (kept coherent by fence.i, see
// SyncText), so a Hook may call it.
func (m *Machine) ProfileTag(pc uint64) uint8 {
	in, ok := m.InstAt(pc - 4)
	if !ok {
		return 0
	}
	t, _ := HintTag(in)
	return t
}
