// Native code ABI: the registers and State offsets that generated code, the code cache's trampoline and package fragment's State agree on.

package amd64

import (
	"unsafe"

	"rvdyn/profhw/rpa"
)

// Register conventions inside native code: R15 holds the *State, R14 the
// host address of guest address 0, R12 the budget; AX, CX and DX are
// scratch. Native code never touches the stack pointer, uses BP as a
// general register (the trampoline saves and restores it) and calls
// nothing. rBudget holds State.Budget while native code runs (the trampoline
// loads and stores it), except inside a fragment that lends it to a guest
// register (regAlloc.giveBudget): there State.Budget holds the budget
// from the entry to the exit stubs, which put it back in rBudget. Under a
// sampled query rBudget also holds the sampling countdown in its low 16
// bits, the budget shifted above it (regAlloc.packed, cdpack.go).
const rBudget = rR12

// Offsets in bytes of the fields of fragment.State that native code and
// the trampoline use. fragment's state_test.go pins each against
// unsafe.Offsetof, and codecache's tests pin the trampoline's copy
// (codecache/state_amd64.h).
const (
	StateX      = 0   // CPU.X: guest registers x0..x31, 8 bytes each
	StatePC     = 256 // CPU.PC: the guest pc, written by indirect exits
	StateF      = 264 // CPU.F: guest registers f0..f31, 8 bytes each
	StateFCSR   = 520 // CPU.FCSR: fflags and frm
	StateResv   = 528 // CPU.Resv: lr's reservation
	StateBudget = 536 // Budget: guest instructions native code may still retire
	StateExit   = 544 // Exit: the ID of the exit stub taken
	StateIBL    = 552 // IBL: host address of the indirect branch lookup table
	// StateMXCSR is MXCSR: the host's MXCSR as native code left it,
	// saved by the trampoline (fragment.State.AccrueFlags).
	StateMXCSR = 560
	// StateCountdown is Countdown: the relational profiler's sampling
	// countdowns, 8 bytes each, indexed by ir.Inst.Off of an OpSample.
	StateCountdown = 568
	// StateFlagSnaps is FlagSnaps: MaxFlagSnaps 4-byte MXCSR snapshots
	// of reads of fflags left to the exits (flagsnap.go).
	StateFlagSnaps = 848
	// StateNative is Native: the rpa.NativeState native queries use
	// (last: its size follows rpa.NativeGaps).
	StateNative = 864
)

// Offsets in State of the rpa.NativeState fields native queries use.
var (
	stateGaps    = StateNative + int64(unsafe.Offsetof(rpa.NativeState{}.Gaps))
	stateUsed    = StateNative + int64(unsafe.Offsetof(rpa.NativeState{}.Used))
	stateDrawn   = StateNative + int64(unsafe.Offsetof(rpa.NativeState{}.Drawn))
	stateAlways  = StateNative + int64(unsafe.Offsetof(rpa.NativeState{}.Always))
	stateRecords = StateNative + int64(unsafe.Offsetof(rpa.NativeState{}.Records))
	stateInsts   = StateNative + int64(unsafe.Offsetof(rpa.NativeState{}.Insts))
	stateSent    = StateNative + int64(unsafe.Offsetof(rpa.NativeState{}.Sent))
	stateRec     = StateNative + int64(unsafe.Offsetof(rpa.NativeState{}.Rec))
)

// regOff returns the offset of guest register x<r> in State.
func regOff(r uint8) int64 { return StateX + 8*int64(r) }
