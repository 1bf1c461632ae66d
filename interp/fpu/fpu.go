// Shared vocabulary: rounding modes, exception flags and canonical NaNs.

package fpu

import (
	"strconv"
	"strings"
)

// An RM is a RISC-V rounding mode, as encoded in an instruction's rm field
// and in the frm CSR. Only the five static modes are valid arguments; the
// caller resolves the dynamic mode (7) from frm and rejects 5 and 6 (as
// illegal instructions). Other values give unspecified results but never
// panic. The zero value is RNE.
type RM uint8

// The rounding modes, in their ISA encoding.
const (
	RNE RM = 0 // round to nearest, ties to even
	RTZ RM = 1 // round towards zero
	RDN RM = 2 // round down, towards -infinity
	RUP RM = 3 // round up, towards +infinity
	RMM RM = 4 // round to nearest, ties away from zero (to max magnitude)
)

var rmNames = [...]string{"rne", "rtz", "rdn", "rup", "rmm"}

// String returns the assembler's name for the mode ("rne", "rtz", ...).
func (rm RM) String() string {
	if int(rm) < len(rmNames) {
		return rmNames[rm]
	}
	return "rm" + strconv.Itoa(int(rm))
}

// Flags is a set of accrued floating-point exceptions, laid out as the
// fflags CSR: the caller ORs it into fflags. The zero value is no
// exception.
type Flags uint8

// The exception flags, in their fflags bit positions.
const (
	NX Flags = 1 << iota // inexact
	UF                   // underflow: tiny (after rounding) and inexact
	OF                   // overflow: also raises NX
	DZ                   // divide by zero: finite nonzero / zero
	NV                   // invalid operation
)

// String lists the flags set, most significant first, joined by "|"
// (for example "NV|NX"); no flag at all is "0".
func (f Flags) String() string {
	if f == 0 {
		return "0"
	}
	var names []string
	for _, n := range []struct {
		f    Flags
		name string
	}{{NV, "NV"}, {DZ, "DZ"}, {OF, "OF"}, {UF, "UF"}, {NX, "NX"}} {
		if f&n.f != 0 {
			names = append(names, n.name)
		}
	}
	if rest := f &^ (NV | DZ | OF | UF | NX); rest != 0 {
		names = append(names, "0x"+strconv.FormatUint(uint64(rest), 16))
	}
	return strings.Join(names, "|")
}

// The canonical NaNs: the only NaNs a RISC-V floating-point operation
// ever produces (positive, quiet, zero payload).
const (
	CanonicalNaN64 uint64 = 0x7ff8000000000000
	CanonicalNaN32 uint32 = 0x7fc00000
)
