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
	// (truncated to the access width), or the result written to rd for
	// ALU and multiply/divide instructions.
	Value uint64
}

// A Hook receives one Event per selected instruction, after the instruction
// retired. The Event is owned by the interpreter and reused: a hook that
// keeps it must copy it. A hook must not call back into the Machine.
type Hook interface {
	Event(e *Event)
}

// HookFunc adapts a function to the Hook interface.
type HookFunc func(e *Event)

// Event calls f(e).
func (f HookFunc) Event(e *Event) { f(e) }
