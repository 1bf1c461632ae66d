// Exits and memory limits: what an IR exit records, and the guest memory (Env) the IR is checked and compiled against.

package ir

import (
	"fmt"

	"rvdyn/interp"
)

// Env describes the guest the code is compiled for: the memory limits every
// emitted load and store checks against (see interp.Memory). A load may
// access [ReadLo, GuardLo) and [GuardHi, MemSize), a store [WriteLo,
// GuardLo) and [GuardHi, MemSize); the guard gap [GuardLo, GuardHi) below
// the stack faults. GuardLo = GuardHi = 0 means no guard gap.
//
// The intervals are the most the fast path can ever cover: how much of
// them it covers now (the spans) the interpreter keeps in the header
// before guest memory, where native code reads it (interp.Memory), and
// what lies outside is decided by the access table. A constant address
// needs no check at all only below StaticHi (the program's image, which
// stays accessible until interp.Machine.EnvEpoch changes, and with it
// the Env).
type Env struct {
	ReadLo   uint64 // lowest address of the loads' fast interval
	WriteLo  uint64 // lowest address of the stores' fast interval
	MemSize  uint64 // size of the guest address space, at most 2 GiB
	GuardLo  uint64 // lowest address of the guard gap (the heap's limit)
	GuardHi  uint64 // end of the guard gap: the lowest stack address
	StaticHi uint64 // end of the pages from ReadLo and WriteLo that stay accessible (0: GuardLo)
	// MapReadLo and MapWriteLo are where the mappings' intervals began
	// when the code was compiled (interp.MapSpanOffsets; 0: unknown): a
	// hint only, for which interval an access tries first.
	MapReadLo, MapWriteLo uint64
}

// InMapped reports whether an access recorded at guest address a (a store
// if store) hit the mappings' interval (by the hint).
func (e Env) InMapped(a uint64, store bool) bool {
	lo := e.MapReadLo
	if store {
		lo = e.MapWriteLo
	}
	return lo != 0 && a >= lo && a < e.GuardLo
}

// EnvOf returns the Env of a loaded machine.
func EnvOf(m *interp.Machine) Env {
	lo, hi := m.Mem.Guard()
	r, w := m.MapRuns()
	return Env{ReadLo: m.Mem.ReadLo(), WriteLo: m.Mem.WriteLo(), MemSize: m.Mem.Size(), GuardLo: lo, GuardHi: hi, StaticHi: m.StaticHi(), MapReadLo: r, MapWriteLo: w}
}

// Norm returns e with an absent guard gap placed at MemSize, where it is
// empty, so that [lo, GuardLo) and [GuardHi, MemSize) are always the two
// intervals, and an unset StaticHi at GuardLo.
func (e Env) Norm() Env {
	if e.GuardLo == 0 && e.GuardHi == 0 {
		e.GuardLo, e.GuardHi = e.MemSize, e.MemSize
	}
	if e.StaticHi == 0 {
		e.StaticHi = e.GuardLo
	}
	return e
}

// InStack reports whether guest address a lies in the stack interval
// [GuardHi, MemSize) of a normalized Env.
func (e Env) InStack(a uint64) bool { return a-e.GuardHi < e.MemSize-e.GuardHi }

// An ExitKind says what the dispatcher does when native code leaves
// through an exit.
type ExitKind uint8

const (
	// ExitBranch continues at a static guest target: an off-trace branch
	// direction or the end of the trace. The code cache may link it.
	ExitBranch ExitKind = iota
	// ExitInterp interprets the instruction at Target, which native code
	// did not execute: a load or store outside guest memory (the
	// interpreter reports the fault), a rounding mode the host lacks
	// (OpFrm), or an instruction fragments leave to the interpreter
	// that ends a Func (FloatCompiles).
	ExitInterp
	// ExitIndirect continues at State.CPU.PC: a jalr whose target was
	// neither the recorded one nor found in the indirect branch lookup
	// table. The jalr has retired.
	ExitIndirect
	// ExitSample interprets the instruction at Target, which native code
	// did not execute, with the relational profiler's hook: its sampling
	// countdown (OpSample) says this execution is sampled, so the query
	// engine builds its record and runs the query (RPA sec. 3.4.2).
	ExitSample
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
	case ExitSample:
		return "sample"
	}
	return fmt.Sprintf("ExitKind(%d)", uint8(k))
}

// An Exit is where a trace may leave: what the dispatcher needs to go on
// from there. The backend adds where its stub's patchable fields are.
type Exit struct {
	Kind    ExitKind
	Target  uint64 // guest pc where execution continues (0 for ExitIndirect)
	From    uint64 // guest pc of the instruction that leaves
	Retired int    // guest instructions retired from the fragment entry to this exit
	// Spec marks the exit of a value specialization guard (Specialize):
	// the load at From retired with a value other than the one the
	// fragment was specialized on.
	Spec bool
}
