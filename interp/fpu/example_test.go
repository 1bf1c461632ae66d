// Examples: instruction operands as bit patterns -> result bits and fflags.

package fpu_test

import (
	"fmt"
	"math"

	"rvdyn/interp/fpu"
)

// fadd.d under two rounding modes: 1 + 2^-53 is a tie, which RNE
// resolves to the even neighbour and RUP rounds up; both are inexact.
func ExampleAdd64() {
	one, tie := math.Float64bits(1), math.Float64bits(0x1p-53)
	for _, rm := range []fpu.RM{fpu.RNE, fpu.RUP} {
		r, fl := fpu.Add64(one, tie, rm)
		fmt.Printf("%v: %#x %v\n", rm, r, fl)
	}
	// Output:
	// rne: 0x3ff0000000000000 NX
	// rup: 0x3ff0000000000001 NX
}

// fcvt.wu.d saturates and sign-extends: -0.5 truncates to 0 (inexact),
// -1 is out of range (invalid, and then not inexact), and 2^32-1 comes
// back as the 32-bit all-ones pattern sign-extended to 64 bits.
func ExampleF64ToU32() {
	for _, x := range []float64{-0.5, -1, 4294967295} {
		r, fl := fpu.F64ToU32(math.Float64bits(x), fpu.RTZ)
		fmt.Printf("%v: %#x %v\n", x, r, fl)
	}
	// Output:
	// -0.5: 0x0 NX
	// -1: 0x0 NV
	// 4.294967295e+09: 0xffffffffffffffff 0
}

// Every NaN result is the canonical NaN, whatever the operands' payloads;
// 0 × inf raises NV even when the addend is a quiet NaN.
func ExampleMulAdd64() {
	inf, nan := math.Float64bits(math.Inf(1)), uint64(0x7ff8000000000123)
	r, fl := fpu.MulAdd64(inf, 0, nan, false, false, fpu.RNE)
	fmt.Printf("%#x %v\n", r, fl)
	// Output:
	// 0x7ff8000000000000 NV
}
