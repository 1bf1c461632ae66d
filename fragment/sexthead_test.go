package fragment_test

import (
	"math/rand/v2"
	"testing"

	"rvdyn/fragment"
	"rvdyn/internal/rvtest"
	"rvdyn/interp"
)

// TestStaleAtLoopHead runs a self-loop whose body writes W results (their
// upper halves left stale) before reading them in full, so the back edge
// leaves them unextended, and whose side exits come before they are
// written again: the exits' stubs must extend what the previous
// iteration left, in every iteration an exit can be taken from (the
// first, from the entry, whose values may not be sign extensions, and
// later ones, from the back edge), and a register that also holds a
// full 64-bit value between its writes must reach the head extended,
// against the interpreter, with lazy sign extension and without.
func TestStaleAtLoopHead(t *testing.T) {
	type I = interp.Inst
	out := func(i int) int64 { return 4 * int64(9-i) } // from body[i] to the exit after the loop
	body := []I{
		{Op: interp.OpADDI, Rd: 12, Rs1: 12, Imm: 1},
		{Op: interp.OpBLT, Rs1: 13, Rs2: 12, Imm: out(1)},
		{Op: interp.OpADDW, Rd: 5, Rs1: 7, Rs2: 8},
		{Op: interp.OpSLLW, Rd: 6, Rs1: 5, Rs2: 9},
		{Op: interp.OpADDW, Rd: 14, Rs1: 14, Rs2: 6}, // read in its low half only, then written
		{Op: interp.OpADD, Rd: 15, Rs1: 7, Rs2: 8},   // not a sign extension: stays extended at the head
		{Op: interp.OpBLT, Rs1: 16, Rs2: 12, Imm: out(6)},
		{Op: interp.OpADDW, Rd: 15, Rs1: 15, Rs2: 9},
		{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: -1},
	}
	rng := rand.New(rand.NewPCG(31, 32))
	vals := []uint64{0x7fffffff, 1, 0x80000000, 0xffffffff, 0x12345678_9abcdef0, 0xffffffff_fffffffe, 3}
	set := func(cpu *interp.CPU, iters, exitAfter uint64) {
		*cpu = interp.CPU{PC: rvtest.MakeELFText}
		cpu.X[10], cpu.X[13], cpu.X[16] = iters, exitAfter, uint64(rng.IntN(40))
		for _, r := range []int{5, 6, 7, 8, 9, 14, 15} {
			cpu.X[r] = vals[rng.IntN(len(vals))] + uint64(rng.IntN(4))
		}
	}
	// The second loop's side exit to its head jumps back to the body
	// (a self exit) with a full 64-bit value in a register the back edge
	// leaves stale: it may not be left stale at the head.
	selfExit := []I{
		{Op: interp.OpADDI, Rd: 12, Rs1: 12, Imm: 1},
		{Op: interp.OpBLT, Rs1: 13, Rs2: 12, Imm: 4 * 6},
		{Op: interp.OpADD, Rd: 15, Rs1: 7, Rs2: 8},
		{Op: interp.OpBEQ, Rs1: 17, Rs2: 0, Imm: -4 * 3},
		{Op: interp.OpADDW, Rd: 15, Rs1: 15, Rs2: 9},
		{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: -1},
	}
	// The third, CRC's shape: x6 (crc) reaches the head stale, read
	// first by a W shift and a bitwise op of a known value, and is
	// written a sign extension again at the end; a side exit comes before.
	crc := []I{
		{Op: interp.OpADDI, Rd: 12, Rs1: 12, Imm: 1},
		{Op: interp.OpBLT, Rs1: 13, Rs2: 12, Imm: out(1)},
		{Op: interp.OpSRLIW, Rd: 5, Rs1: 6, Imm: 8},
		{Op: interp.OpANDI, Rd: 7, Rs1: 8, Imm: 255},
		{Op: interp.OpXOR, Rd: 7, Rs1: 7, Rs2: 6},
		{Op: interp.OpANDI, Rd: 7, Rs1: 7, Imm: 255},
		{Op: interp.OpXOR, Rd: 5, Rs1: 5, Rs2: 7},
		{Op: interp.OpADDIW, Rd: 6, Rs1: 5, Imm: 0},
		{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: -1},
	}
	for _, loop := range [][]I{body, selfExit, crc} {
		img := loopImage(loop, make([]byte, 64), 64)
		for _, lazy := range []bool{true, false} {
			trace, code := compileLoop(t, img, len(loop), func(cpu *interp.CPU) { set(cpu, 20, 1000); cpu.X[17] = 1 }, fragment.Options{NoLazySext: !lazy})
			if !code.SelfLoop {
				t.Fatal("the trace does not loop")
			}
			what := "lazy"
			if !lazy {
				what = "eager"
			}
			runLoop(t, what, img, trace, code, 600, rng, func(cpu *interp.CPU, _ int) {
				set(cpu, uint64(1+rng.IntN(30)), uint64(rng.IntN(30)))
				cpu.X[17] = uint64(rng.IntN(2))
			})
		}
	}
}
