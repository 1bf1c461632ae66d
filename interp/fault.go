// Guest faults and run errors: what stops a guest other than its own exit.

package interp

import (
	"errors"
	"fmt"
)

// A FaultKind says why a guest instruction could not complete.
type FaultKind uint8

// The fault kinds, each mapped to the signal Linux would deliver.
const (
	FaultLoad       FaultKind = iota // load from an address that is unmapped or not readable (SIGSEGV)
	FaultStore                       // store to an address that is unmapped or not writable (SIGSEGV)
	FaultFetch                       // jump to an address that holds no executable code (SIGSEGV)
	FaultMisaligned                  // jump to an odd address, or an atomic access that is not naturally aligned (SIGBUS)
	FaultIllegal                     // instruction that is not RV64GC, or a CSR it may not access (SIGILL)
	FaultBreakpoint                  // ebreak (SIGTRAP)
	FaultBus                         // load or store on a file mapping's page wholly past the end of the file (SIGBUS)
)

var faultNames = [...]string{"bad load address", "bad store address", "bad jump target",
	"misaligned address", "illegal instruction", "breakpoint", "access past the end of a mapped file at"}

// String names the fault kind, e.g. "bad store address".
func (k FaultKind) String() string {
	if int(k) < len(faultNames) {
		return faultNames[k]
	}
	return fmt.Sprintf("FaultKind(%d)", uint8(k))
}

// Signal returns the number of the signal a Linux process would receive.
func (k FaultKind) Signal() int {
	switch k {
	case FaultMisaligned, FaultBus:
		return 7 // SIGBUS
	case FaultIllegal:
		return 4 // SIGILL
	case FaultBreakpoint:
		return 5 // SIGTRAP
	}
	return 11 // SIGSEGV
}

// A Fault is a guest instruction that could not complete. The machine state
// is as it was before the faulting instruction; PC is its address.
type Fault struct {
	Kind FaultKind
	PC   uint64 // address of the faulting instruction
	Addr uint64 // the bad address (loads, stores, jumps), if any
	Raw  uint32 // the instruction word, if it could be read
}

// Error renders the fault as one line, e.g.
// "guest fault: bad store address 0x8 at pc 0x101f4 (sd a1,8(zero))".
func (f *Fault) Error() string {
	switch f.Kind {
	case FaultIllegal:
		if f.Raw&3 != 3 {
			return fmt.Sprintf("guest fault: illegal instruction 0x%04x at pc 0x%x", f.Raw, f.PC)
		}
		return fmt.Sprintf("guest fault: illegal instruction 0x%08x at pc 0x%x", f.Raw, f.PC)
	case FaultBreakpoint:
		return fmt.Sprintf("guest fault: breakpoint (ebreak) at pc 0x%x", f.PC)
	case FaultFetch, FaultMisaligned:
		return fmt.Sprintf("guest fault: %v 0x%x at pc 0x%x", f.Kind, f.Addr, f.PC)
	}
	return fmt.Sprintf("guest fault: %v 0x%x at pc 0x%x (%v)", f.Kind, f.Addr, f.PC, Decode(f.Raw))
}

// ErrLimit is returned when a run retires its instruction limit before the
// guest exits.
var ErrLimit = errors.New("instruction limit reached")

// A LoadError says why an ELF image cannot be loaded.
type LoadError struct {
	Reason string
	Err    error // underlying error, if any
}

func (e *LoadError) Error() string {
	if e.Err != nil {
		return "bad guest program: " + e.Reason + ": " + e.Err.Error()
	}
	return "bad guest program: " + e.Reason
}

func (e *LoadError) Unwrap() error { return e.Err }
