// Exits: the one vocabulary of native code's returns to the dispatcher, shared by the IR, the x86-64 backend, the code cache and the engine.

// Package exit names why native code returns to the dispatcher (Kind)
// and records where a fragment may leave (Record). It is a leaf: the IR
// (fragment/ir.Exit adds what the emitter needs), the backend
// (fragment/amd64.Stub adds the stub's patchable fields), the code cache
// (codecache.Exit adds the fragment and its link) and the engine (its
// run statistics count exits by Kind) all speak it, as wazero's wazevoapi
// holds the exit codes its layers share.
package exit

import "fmt"

// A Kind says what the dispatcher does when native code leaves, and is
// what the engine counts exits by.
type Kind uint8

// The kinds. Budget is the dispatcher's and not an exit stub's: it names
// a return of any kind but Interp and Sample taken after the fragment's
// instruction budget ran out at a poll point.
const (
	// Branch continues at a static guest target: an off-trace branch
	// direction or the end of the trace. The code cache may link it.
	Branch Kind = iota
	// Budget: the instruction budget ran out at a poll point.
	Budget
	// Interp interprets the instruction at Target, which native code did
	// not execute: a load or store outside guest memory (the interpreter
	// reports the fault), a rounding mode the host lacks, or an
	// instruction fragments leave to the interpreter that ends a trace.
	Interp
	// Indirect continues at the guest pc in the state: a jalr whose
	// target was neither the recorded one nor found in the indirect
	// branch lookup table. The jalr has retired.
	Indirect
	// Sample interprets the instruction at Target, which native code did
	// not execute, with the relational profiler's hook: its sampling
	// countdown says this execution is sampled, so the query engine
	// builds its record and runs the query (Heil and Smith, "Relational
	// Profiling", section 3.4.2).
	Sample
	// NumKinds is the number of kinds.
	NumKinds
)

// names are each kind's short name (its JSON key, "exits_" + name), its
// row in the statistics table and what its count means there.
var names = [NumKinds]struct{ key, text, doc string }{
	Branch:   {"branch", "unlinked branch", "... through an exit stub not linked to a fragment"},
	Budget:   {"budget", "budget (poll)", "... because the instruction budget ran out"},
	Interp:   {"interp", "to interpreter", "... to interpret one instruction"},
	Indirect: {"indirect", "indirect miss", "... after an indirect jump missed the lookup table"},
	Sample:   {"sample", "rpa sample", "... for the relational profiler's sample"},
}

// String returns the kind's short name ("branch", "interp", ...).
func (k Kind) String() string {
	if k < NumKinds {
		return names[k].key
	}
	return fmt.Sprintf("exit.Kind(%d)", uint8(k))
}

// Text returns the kind's row label in the statistics table ("unlinked
// branch", "to interpreter", ...).
func (k Kind) Text() string {
	if k < NumKinds {
		return names[k].text
	}
	return k.String()
}

// Doc says what a count of the kind's exits means, as the statistics
// reference (docs/internals.md) gives it.
func (k Kind) Doc() string {
	if k < NumKinds {
		return names[k].doc
	}
	return ""
}

// A Record is where a trace may leave: what the dispatcher needs to go
// on from there.
type Record struct {
	Kind    Kind
	Target  uint64 // guest pc where execution continues (0 for Indirect)
	From    uint64 // guest pc of the instruction that leaves
	Retired int    // guest instructions retired from the fragment entry to this exit
	// Spec marks the exit of a value specialization guard: the load at
	// From retired with a value other than the one the fragment was
	// specialized on.
	Spec bool
	// EntryTest marks the exit of a test on entry that may fail where
	// nothing is wrong ahead: one that found a register the fragment
	// leaves stale at its loop head holding no sign extension (amd64's
	// sextCheck), a loop check bounded by the trip of a loop that may
	// leave earlier through another guard (ir.CheckHoistEarlyExits), or
	// the box check on entry of a fragment that does not loop
	// (ir.BoxCheckLine).
	// The interpreter runs on from the head, and the dispatcher compiles
	// the head again without those mechanisms if its tests keep failing.
	EntryTest bool
}
