package fragment_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"golang.org/x/arch/x86/x86asm"

	"rvdyn/fragment"
	"rvdyn/internal/rvtest"
	"rvdyn/interp"
)

// TestFusedInPlace runs a self-loop of fused multiply-adds whose
// destination is one of their factors (the destination a, or b, or a and
// the addend, or both factors), of all four kinds and both precisions,
// against the interpreter: they compile to FMA3's 213 form into the
// factor's register, and the NaN test's check of the factors for 0 * inf
// with a quiet NaN addend (which x86 does not flag) must read the factor
// as it was, not the result that replaced it. The operands are zeros,
// infinities, quiet and signaling NaNs with payloads and numbers, singles
// boxed or not; each iteration reads fflags and clears them, so every
// iteration's flags count.
func TestFusedInPlace(t *testing.T) {
	type I = interp.Inst
	const dyn = 7
	body := []I{
		{Op: interp.OpFMADDD, Rd: 12, Rs1: 12, Rs2: 13, Imm: dyn | 14<<8},  // d = a
		{Op: interp.OpFNMSUBD, Rd: 13, Rs1: 11, Rs2: 13, Imm: dyn | 15<<8}, // d = b
		{Op: interp.OpFMSUBD, Rd: 14, Rs1: 14, Rs2: 16, Imm: dyn | 14<<8},  // d = a = c
		{Op: interp.OpFNMADDD, Rd: 16, Rs1: 16, Rs2: 16, Imm: dyn | 15<<8}, // d = a = b: a square
		{Op: interp.OpFMADDS, Rd: 17, Rs1: 17, Rs2: 18, Imm: dyn | 19<<8},  // singles, d = a
		{Op: interp.OpFNMSUBS, Rd: 18, Rs1: 19, Rs2: 18, Imm: dyn | 17<<8}, // d = b
		{Op: interp.OpFMVXD, Rd: 6, Rs1: 12},
		{Op: interp.OpXOR, Rd: 5, Rs1: 5, Rs2: 6},
		{Op: interp.OpFMVXD, Rd: 6, Rs1: 13},
		{Op: interp.OpADD, Rd: 5, Rs1: 5, Rs2: 6},
		{Op: interp.OpFMVXD, Rd: 6, Rs1: 14},
		{Op: interp.OpXOR, Rd: 5, Rs1: 5, Rs2: 6},
		{Op: interp.OpFMVXD, Rd: 6, Rs1: 16},
		{Op: interp.OpADD, Rd: 5, Rs1: 5, Rs2: 6},
		{Op: interp.OpFMVXD, Rd: 6, Rs1: 17},
		{Op: interp.OpXOR, Rd: 5, Rs1: 5, Rs2: 6},
		{Op: interp.OpFMVXD, Rd: 6, Rs1: 18},
		{Op: interp.OpADD, Rd: 5, Rs1: 5, Rs2: 6},
		{Op: interp.OpCSRRS, Rd: 6, Rs1: 0, Imm: interp.CSRFflags},
		{Op: interp.OpSLLI, Rd: 9, Rs1: 9, Imm: 5},
		{Op: interp.OpOR, Rd: 9, Rs1: 9, Rs2: 6},
		{Op: interp.OpCSRRW, Rd: 0, Rs1: 0, Imm: interp.CSRFflags}, // clear: the next iteration raises afresh
		{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: -1},
	}
	img := loopImage(body, make([]byte, 64), 64)
	dbl := []uint64{0, 0x8000000000000000, 0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000,
		0x7ff8000000000123, 0xfff8000000000456, 0x7ff4000000000001, 0x3ff0000000000000, 0xc008000000000000}
	sgl := []uint64{0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7fc00123, 0x7fa00001, 0x3f800000}
	rng := rand.New(rand.NewPCG(43, 44))
	set := func(cpu *interp.CPU, iters uint64) {
		*cpu = interp.CPU{PC: rvtest.MakeELFText}
		cpu.X[10] = iters
		for _, r := range []int{11, 12, 13, 14, 15, 16} {
			cpu.F[r] = dbl[rng.IntN(len(dbl))]
		}
		for _, r := range []int{17, 18, 19} {
			cpu.F[r] = sgl[rng.IntN(len(sgl))]
			if rng.IntN(4) != 0 {
				cpu.F[r] |= 0xffffffff_00000000 // boxed
			}
		}
	}
	for _, lazy := range []bool{true, false} {
		opts := fragment.Options{NoLazyNaN: !lazy}
		checkSelfLoop(t, fmt.Sprintf("lazy %v", lazy), img, len(body), opts, 800, 6, rng, set)
		_, code := compileLoop(t, img, len(body), func(cpu *interp.CPU) { set(cpu, 20) }, opts)
		if n := countFused213(t, code.Bytes); n < 3 {
			t.Errorf("lazy %v: %d FMAs in a 213 form, want the doubles' three at least", lazy, n)
		}
	}
}

// countFused213 counts the FMA3 213-form instructions in code.
func countFused213(t *testing.T, code []byte) int {
	t.Helper()
	n := 0
	for off := 0; off < len(code); {
		in, err := x86asm.Decode(code[off:], 64)
		if err != nil {
			t.Fatalf("offset %d: %v", off, err)
		}
		if strings.Contains(in.Op.String(), "213S") {
			n++
		}
		off += in.Len
	}
	return n
}
