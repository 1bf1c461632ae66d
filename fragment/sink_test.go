// Tests of shifts sunk into a self-loop's exit stubs: the registers they write hold the interpreter's values at every exit.

package fragment_test

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"rvdyn/fragment"
	"rvdyn/internal/rvtest"
	"rvdyn/interp"
)

// TestSunkShiftsAtExits runs a self-loop with a rotation's two halves
// (their registers read by nothing once rotate has the or read the
// source), a 64-bit shift whose source the body writes again later, and
// a side exit after them, natively and in the interpreter: the halves
// are sunk into the exit stubs and every exit (the side exit, the end,
// the back edge's when the budget runs out) must leave them as the
// interpreter does; the 64-bit shift stays in the body.
func TestSunkShiftsAtExits(t *testing.T) {
	type I = interp.Inst
	body := []I{
		{Op: interp.OpADDI, Rd: 12, Rs1: 12, Imm: 1},
		{Op: interp.OpSRLIW, Rd: 5, Rs1: 7, Imm: 13},
		{Op: interp.OpSLLIW, Rd: 6, Rs1: 7, Imm: 19},
		{Op: interp.OpOR, Rd: 28, Rs1: 5, Rs2: 6},
		{Op: interp.OpSRLI, Rd: 29, Rs1: 8, Imm: 7},
		{Op: interp.OpADDIW, Rd: 7, Rs1: 7, Imm: 0},      // sext.w in place: the W halves may still be sunk
		{Op: interp.OpBLT, Rs1: 13, Rs2: 12, Imm: 4 * 4}, // to the exit after the loop
		{Op: interp.OpADD, Rd: 8, Rs1: 8, Rs2: 28},       // the 64-bit shift's source written again
		{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: -1},
	}
	img := loopImage(body, make([]byte, 64), 64)
	rng := rand.New(rand.NewPCG(51, 52))
	vals := []uint64{0x7fffffff, 1, 0x80000000, 0xffffffff, 0x12345678_9abcdef0, 0xffffffff_fffffffe, 3}
	set := func(cpu *interp.CPU, iters, exitAfter uint64) {
		*cpu = interp.CPU{PC: rvtest.MakeELFText}
		cpu.X[10], cpu.X[13] = iters, exitAfter
		for _, r := range []int{5, 6, 7, 8, 28, 29} {
			cpu.X[r] = vals[rng.IntN(len(vals))] + uint64(rng.IntN(4))
		}
	}
	for _, sink := range []bool{true, false} {
		trace, code := compileLoop(t, img, len(body), func(cpu *interp.CPU) { set(cpu, 20, 1000) }, fragment.Options{NoExitSink: !sink})
		var listing bytes.Buffer
		if err := fragment.WriteListing(&listing, trace, code); err != nil {
			t.Fatal(err)
		}
		sunk := strings.Count(listing.String(), "; sunk:")
		want := map[bool]int{true: 2, false: 0}[sink]
		if sunk != want {
			t.Fatalf("exit-sink %v: %d shifts sunk, want %d\n%s", sink, sunk, want, listing.String())
		}
		runLoop(t, map[bool]string{true: "sunk", false: "in the body"}[sink], img, trace, code, 800, rng, func(cpu *interp.CPU, _ int) {
			set(cpu, uint64(1+rng.IntN(30)), uint64(rng.IntN(30)))
		})
	}
}
