// Double arithmetic in AVX's three-operand forms and compares read in place, under every aliasing of destination and operands -> the interpreter's results and flags.

package fragment_test

import (
	"math/rand/v2"
	"testing"

	"rvdyn/fragment"
	"rvdyn/interp"
)

// TestDoubleArithAliasing runs double add, subtract, multiply and
// divide with the destination apart from both operands, equal to the
// first, to the second, to both, and with both operands one register;
// then compares of registers arithmetic left dirty (a NaN of x86's),
// quiet (the frflags / flt / fsflags idiom) and signalling, read where
// they are. It compiles with AVX's forms and with SSE2's (--disable=avx),
// with f registers in XMM registers and in memory, against the
// interpreter: results, NaN bits and fflags.
func TestDoubleArithAliasing(t *testing.T) {
	type I = interp.Inst
	const dyn = 7
	csr := func(op interp.Op, rd, rs1 uint8, c uint16) I { return I{Op: op, Rd: rd, Rs1: rs1, Imm: int64(c)} }
	prog := []I{
		{Op: interp.OpFSUBD, Rd: 1, Rs1: 11, Rs2: 12, Imm: dyn},  // apart
		{Op: interp.OpFDIVD, Rd: 11, Rs1: 11, Rs2: 13, Imm: dyn}, // d = a
		{Op: interp.OpFSUBD, Rd: 12, Rs1: 13, Rs2: 12, Imm: dyn}, // d = b
		{Op: interp.OpFMULD, Rd: 13, Rs1: 13, Rs2: 13, Imm: dyn}, // d = a = b
		{Op: interp.OpFADDD, Rd: 2, Rs1: 1, Rs2: 1, Imm: dyn},    // a = b
		{Op: interp.OpFDIVD, Rd: 3, Rs1: 12, Rs2: 1, Imm: dyn},
		csr(interp.OpCSRRS, 14, 0, interp.CSRFflags),
		{Op: interp.OpFLTD, Rd: 15, Rs1: 3, Rs2: 2},
		{Op: interp.OpFLED, Rd: 16, Rs1: 11, Rs2: 3},
		csr(interp.OpCSRRW, 0, 14, interp.CSRFflags),
		{Op: interp.OpFEQD, Rd: 17, Rs1: 3, Rs2: 12},
		{Op: interp.OpFLTD, Rd: 18, Rs1: 2, Rs2: 1}, // signalling: NV if either is a NaN
		{Op: interp.OpFMVXD, Rd: 19, Rs1: 3},
		{Op: interp.OpFMVXD, Rd: 20, Rs1: 2},
	}
	rng := rand.New(rand.NewPCG(23, 24))
	var operands [][]uint64
	for range 2000 {
		operands = append(operands, []uint64{uint64(rng.IntN(32)), specialFloat(rng), specialFloat(rng), specialFloat(rng)})
	}
	for _, opts := range []fragment.Options{{}, {NoAVX: true}, {NoFloatRegs: true}, {NoAVX: true, NoFloatRegs: true}} {
		checkProgramOpts(t, newCache(t), prog, operands, func(c []uint64) uint64 { return c[0] }, false, len(prog)+1, rng, nil, opts)
	}
}
