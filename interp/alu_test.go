package interp

import (
	"math"
	"testing"
)

// TestALU pins the M extension's corner cases and the W forms' sign
// extension, as the RISC-V unprivileged spec (chapter "M", table of
// division corner cases) defines them.
func TestALU(t *testing.T) {
	const minI64 = uint64(1) << 63
	m1 := ^uint64(0)
	minI32 := uint64(0xffffffff80000000)
	for _, tc := range []struct {
		op   Op
		a, b uint64
		want uint64
	}{
		{OpDIV, 7, 0, m1},
		{OpDIVU, 7, 0, m1},
		{OpREM, 7, 0, 7},
		{OpREMU, 7, 0, 7},
		{OpDIV, minI64, m1, minI64},
		{OpREM, minI64, m1, 0},
		{OpDIV, uint64(math.MaxUint64 - 6), 2, uint64(math.MaxUint64 - 2)}, // -7/2 = -3 (truncates)
		{OpREM, uint64(math.MaxUint64 - 6), 2, m1},                         // -7%2 = -1
		{OpDIVW, 7, 0, m1},
		{OpDIVUW, 7, 0, m1},
		{OpREMW, 0x1_0000_0007, 0, 7},
		{OpREMUW, 0x8000_0000, 0, minI32},
		{OpDIVW, 0x8000_0000, m1, minI32},
		{OpREMW, 0x8000_0000, m1, 0},
		{OpDIVUW, 0xffff_fffe, 1, 0xffff_ffff_ffff_fffe},
		{OpMULH, m1, m1, 0},
		{OpMULHU, m1, m1, m1 - 1},
		{OpMULHSU, m1, m1, m1},
		{OpMULHSU, 2, m1, 1},
		{OpMULW, 0x10000, 0x10000, 0},
		{OpMULW, 0x7fffffff, 2, 0xffff_ffff_ffff_fffe},
		{OpADDW, 0x7fffffff, 1, minI32},
		{OpSUBW, 0, 1, m1},
		{OpSLLW, 1, 31, minI32},
		{OpSLLW, 1, 32, 1}, // shift amount taken mod 32
		{OpSRLW, 0x8000_0000, 31, 1},
		{OpSRLW, minI32, 0, minI32},
		{OpSRAW, 0x8000_0000, 31, m1},
		{OpSRA, minI64, 63, m1},
		{OpSRL, minI64, 63 + 64, 1}, // shift amount taken mod 64
		{OpSLT, m1, 0, 1},
		{OpSLTU, m1, 0, 0},
		{OpSLTIU, 0, m1, 1}, // sltiu rd, rs, -1 is "rs != all ones"
	} {
		got, ok := ALU(tc.op, tc.a, tc.b)
		if !ok || got != tc.want {
			t.Errorf("%v(%#x, %#x) = %#x, %v; want %#x", tc.op, tc.a, tc.b, got, ok, tc.want)
		}
	}
	if _, ok := ALU(OpBEQ, 1, 2); ok {
		t.Error("ALU accepted a branch")
	}
}
