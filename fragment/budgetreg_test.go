package fragment_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"rvdyn/fragment"
	"rvdyn/fragment/amd64"
	"rvdyn/internal/rvtest"
	"rvdyn/interp"
)

// TestBudgetRegLoop runs self-loops that use more guest registers than
// there are host registers for them, with bodies long enough for the
// budget's register (R12) to hold one more (amd64's giveBudget) and too
// short for it, against the interpreter: budgets that run out on the back
// edge after a random number of iterations, the loop's own exit, and a
// data-dependent side exit. The long loop must lend R12 (its entry
// stores R12 to State.Budget), the short one and the switched-off
// compiler must not.
func TestBudgetRegLoop(t *testing.T) {
	type I = interp.Inst
	rng := rand.New(rand.NewPCG(21, 22))
	// A mixing chain over x5..x31 but a0 (the loop counter, x10), every
	// register read and written: more guest registers than host ones.
	regs := []uint8{5, 6, 7, 8, 9, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31}
	mix := func(n int) []I {
		var b []I
		for i := 0; i < n; i++ {
			d, s := regs[i%len(regs)], regs[(i*7+3)%len(regs)]
			switch i % 4 {
			case 0:
				b = append(b, I{Op: interp.OpADD, Rd: d, Rs1: d, Rs2: s})
			case 1:
				b = append(b, I{Op: interp.OpXOR, Rd: d, Rs1: d, Rs2: s})
			case 2:
				b = append(b, I{Op: interp.OpADDW, Rd: d, Rs1: s, Rs2: d})
			default:
				b = append(b, I{Op: interp.OpSRLI, Rd: d, Rs1: s, Imm: int64(1 + i%31)})
			}
		}
		return b
	}
	for _, tc := range []struct {
		name  string
		body  []I
		lends bool
	}{
		{"a long body", mix(40), true},
		{"a body too short", mix(12), false},
		{"a long body with a side exit", append(mix(20), append([]I{{Op: interp.OpBEQ, Rs1: 20, Rs2: 21, Imm: 4 * 22}}, mix(20)...)...), true},
	} {
		b := append(tc.body, I{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: -1})
		for i := range b {
			if b[i].Op == interp.OpBEQ { // to the ecall after the loop
				b[i].Imm = 4 * int64(len(b)-i+1)
			}
		}
		img := loopImage(b, make([]byte, 64), 64)
		set := func(cpu *interp.CPU, iters uint64) {
			*cpu = interp.CPU{PC: rvtest.MakeELFText}
			for _, r := range regs {
				cpu.X[r] = rng.Uint64()
			}
			if rng.IntN(3) == 0 {
				cpu.X[20] = cpu.X[21] // the side exit, if there is one, on the first pass
			}
			cpu.X[10] = iters
		}
		for _, off := range []bool{false, true} {
			trace, code := compileLoop(t, img, len(b), func(cpu *interp.CPU) { set(cpu, 20); cpu.X[21] = ^cpu.X[20] }, fragment.Options{NoBudgetReg: off})
			var listing strings.Builder
			if err := fragment.WriteListing(&listing, trace, code); err != nil {
				t.Fatal(err)
			}
			store := fmt.Sprintf("MOVQ R12, %#x(R15)", amd64.StateBudget)
			if lends := strings.Contains(listing.String(), store); lends != (tc.lends && !off) {
				t.Fatalf("%s, switched off %v: lends R12: %v\n%s", tc.name, off, lends, listing.String())
			}
			runLoop(t, fmt.Sprintf("%s, switched off %v", tc.name, off), img, trace, code, 300, rng, func(cpu *interp.CPU, _ int) {
				set(cpu, uint64(1+rng.IntN(40)))
			})
		}
	}
}
