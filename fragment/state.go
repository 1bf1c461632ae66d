// State: the one structure native code reads and writes, shared with Go.

package fragment

import (
	"rvdyn/interp"
	"rvdyn/profhw/rpa"
)

// State is the block native code works on, addressed through R15. Its
// layout is part of the code generator's ABI: the offsets (amd64.State*)
// are pinned by a test against unsafe.Offsetof, so do not reorder fields.
type State struct {
	// CPU is the guest register files, pc and fcsr (offset 0). Native code keeps
	// guest registers here between exits; the interpreter uses the same
	// memory (interp.Machine.UseCPU), so no copying happens at the
	// boundary. Native code does not maintain CPU.PC: the exit record says
	// where the guest continues.
	CPU interp.CPU
	// Budget is how many more guest instructions native code may retire
	// before it must return (offset 536). The trampoline keeps it in R12
	// while native code runs; every exit stub subtracts the instructions
	// retired since the fragment entry and leaves through the dispatcher
	// when the result is <= 0, so the dispatcher regains control in bounded
	// time and can compute exact instruction counts.
	Budget int64
	// Exit is the ID of the exit stub through which native code returned
	// (offset 544); the code cache maps it back to its exit record.
	Exit uint64
	// IBL is the host address of the indirect branch lookup table
	// (offset 552): amd64.IBLEntries pairs {guest pc, host entry address},
	// pc in one of the two slots of set amd64.IBLSet(pc), tag
	// amd64.IBLEmpty for an empty slot. The code cache owns the table.
	IBL uintptr
	// MXCSR is the host's SSE control and status register as native code
	// left it (offset 560), saved by the trampoline on every return; the
	// trampoline clears its sticky exception flags (bits 0..5) on entry,
	// so they hold exactly what native code raised. AccrueFlags moves
	// them into fflags.
	MXCSR uint64
	// Countdown holds the relational profiler's sampling countdowns
	// (offset 568), one per profile control table entry (rpa.NumEntries;
	// the root package's test pins the count): how many more selected
	// executions of the entry's instructions until its next sample, 1
	// meaning the next one. Native code (OpSample) and the query engine
	// running in the interpreter (rpa.Engine.UseCountdowns) decrement the
	// same words, so sampling is one stream whichever mode runs an
	// instruction. Unused when no profiler is attached.
	Countdown [NumCountdowns]uint64
	// FlagSnaps are the MXCSR snapshots of reads of fflags whose value
	// only exits can see (offset 848, amd64's lazy fflags, flagsnap.go):
	// native code stores MXCSR there where the guest reads fflags and
	// computes the register's value at an exit; an entry marks them
	// empty (all ones, which MXCSR, whose upper half is reserved as
	// zero, never is). Scratch: nothing outside native code reads them.
	FlagSnaps [NumFlagSnaps]uint32
	// Native is the memory native queries share with the query engine
	// (offset 864, rpa.Engine.UseNative): sampling gaps drawn ahead,
	// native counters and the record buffer (RPA sec. 3.4.2).
	Native rpa.NativeState
}

// AccrueFlags ORs the floating-point exception flags native code raised
// (State.MXCSR's sticky flags) into the guest's fflags (CPU.FCSR bits
// 0..4): invalid -> NV, divide-by-zero -> DZ, overflow -> OF, underflow
// -> UF, precision -> NX. x86's denormal-operand flag has no RISC-V
// counterpart and is dropped. The code cache calls it after every
// return from native code, so the interpreter and CSR reads of fflags
// see every flag a fragment raised.
func (s *State) AccrueFlags() {
	m := s.MXCSR
	if m&0x3d == 0 {
		return
	}
	var f uint64
	if m&0x01 != 0 { // IE
		f |= 0x10
	}
	if m&0x04 != 0 { // ZE
		f |= 0x08
	}
	if m&0x08 != 0 { // OE
		f |= 0x04
	}
	if m&0x10 != 0 { // UE
		f |= 0x02
	}
	if m&0x20 != 0 { // PE
		f |= 0x01
	}
	s.CPU.FCSR |= f
}

// NumCountdowns is the number of sampling countdowns in State: the
// relational profiler's PCT entries (32 instruction classes x tags and 3
// event classes).
const NumCountdowns = 35

// NumFlagSnaps is the number of State.FlagSnaps: reads of fflags one
// fragment may leave to its exits (amd64.MaxFlagSnaps).
const NumFlagSnaps = 4
